"""Settings, all from the environment with safe embedded defaults.

With nothing set the site runs on SQLite under ``var/``, tasks go through
kombu's filesystem transport, and emails land in a local outbox. Set
``DATABASE_URL`` and ``REDIS_URL`` for PostgreSQL and Redis, and
``DJANGO_ENV=production`` for the hardened production mode (which refuses to
start without ``SECRET_KEY``). See ``.env.example``.

One module per concern, each reading its variables through ``environment.py`` (the
one way settings read the environment) and importing by name what it needs of
another part (so the order of the imports below does not matter):

- ``core``: mode, secret key, hosts, apps, middleware, templates, i18n, caches, security
- ``database``: the database and its connection pool
- ``mail``: sending (SMTP or files), DKIM, replies coming back (inbound)
- ``api``: REST framework, throttles, OAuth 2.0 for apps, the OpenAPI schema
- ``tasks``: Celery, its routes and beat schedule, bots, reviews, table talk, presence
- ``streams``: live event streams
- ``webhooks``: outgoing webhooks
- ``operations``: health, heartbeats, metrics, Sentry, logging

``tests/settings/test_settings_split.py`` holds every setting to its name, default and
environment variable.
"""

from .api import *  # noqa: F403
from .core import *  # noqa: F403
from .database import *  # noqa: F403
from .mail import *  # noqa: F403
from .operations import *  # noqa: F403
from .streams import *  # noqa: F403
from .tasks import *  # noqa: F403
from .webhooks import *  # noqa: F403
