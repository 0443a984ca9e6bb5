"""ASGI entry point: every view, and the live event streams (streams/), which
need it: under WSGI a stream would hold a worker for as long as it is open.

In development (DEBUG) it also serves the static files, as ``runserver`` does.
"""

import os

from django.conf import settings
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "manhattan_site.settings")
application = get_asgi_application()
if settings.DEBUG:
    application = ASGIStaticFilesHandler(application)
