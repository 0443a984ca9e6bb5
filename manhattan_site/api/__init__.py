"""The project's one API layer, shared by every app's endpoints.

``codes``: the base error type and the registry of problem codes (each app
declares its own in its ``problem_codes`` module, with a status and a
translated description); ``problems``: the problem+json bodies and the
exception handler; ``pages``: the API index and the problem pages; ``urls``:
the one router that mounts every app's ``api_urls``. Nothing here imports an
app at import time: the apps declare themselves to this layer.
"""
