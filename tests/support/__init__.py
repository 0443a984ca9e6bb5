"""The tests' harnesses, one module each: waiting for a condition, the live
ASGI server, the browser, a Celery worker, Redis, mail, processes. Builders of
games and users are in tests/factories.py; fixtures in the conftest files."""
