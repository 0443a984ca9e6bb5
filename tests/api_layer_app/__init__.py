"""A stand-in app for tests/test_api_layer.py: it mounts an endpoint and declares
a problem code the way every app does, and no file of manhattan_site names it."""
