"""The Celery app: configured from Django settings under the ``CELERY_`` prefix."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "manhattan_site.settings")

app = Celery("manhattan_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
