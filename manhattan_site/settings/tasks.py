"""Background work: Celery (see manhattan_site/celery.py), its queues and beat schedule,
and the knobs of what runs there or beside play: bots, post-game reviews, table talk and
presence."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from .core import REDIS_URL, TIME_ZONE, VAR_DIR
from .environment import env, env_float, env_int

CELERY_BROKER_URL = REDIS_URL or "filesystem://"
if not REDIS_URL:
    _queue = VAR_DIR / "celery-queue"  # made by the commands (manhattan_site/local_folders.py)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_queue),
        "data_folder_out": str(_queue),
        "processed_folder": str(VAR_DIR / "celery-processed"),
        "control_folder": str(VAR_DIR / "celery-control"),
        "store_processed": False,
        # The folder is looked at every tenth of a second, not every second (kombu's
        # default): a bot's answer or an email waited up to a second more per task for it.
        "polling_interval": 0.1,
    }
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_SERIALIZER = "json"
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_TIME_LIMIT = 60
CELERY_TASK_SOFT_TIME_LIMIT = 45
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Celery's Django fix-up closes the database connection around every task
# unless this is set; connections are recycled like a request's instead, by
# CONN_MAX_AGE and health checks (see manhattan_site/celery.py).
CELERY_DB_REUSE_MAX = 2**31
CELERY_TIMEZONE = TIME_ZONE
# Workers log through LOGGING (settings/operations.py: JSON lines in production, with the
# request id of the request that queued the task) instead of Celery's own format.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Bot turns have a queue of their own: a search bot thinks for up to
# BOT_SEARCH_SECONDS a move, and that must never hold up the emails.
CELERY_TASK_ROUTES = {
    "games.tasks.play_bot_turns": {"queue": "bots"},
    "games.tasks.sweep_bot_turns": {"queue": "bots"},
    "games.tasks.review_finished_game": {"queue": "bots"},
    "games.tasks.sweep_reviews": {"queue": "bots"},
}
# One beat runs these; each is a sweep over due rows, never a long ETA task.
CELERY_BEAT_SCHEDULE = {
    "sweep-bot-turns": {"task": "games.tasks.sweep_bot_turns", "schedule": env_int("BOT_SWEEP_SECONDS", 60)},
    "sweep-outbox": {"task": "notifications.tasks.sweep_outbox", "schedule": env_int("OUTBOX_SWEEP_SECONDS", 60)},
    "sweep-reminders": {
        "task": "notifications.tasks.sweep_reminders",
        "schedule": env_int("REMINDER_SWEEP_SECONDS", 300),
    },
    "sweep-reviews": {"task": "games.tasks.sweep_reviews", "schedule": env_int("REVIEW_SWEEP_SECONDS", 900)},
    "fill-open-games-with-bots": {
        "task": "games.tasks.fill_open_games_with_bots",
        "schedule": env_int("BOT_FILL_SWEEP_SECONDS", 300),
    },
    "send-digests": {"task": "notifications.tasks.send_digests", "schedule": env_int("DIGEST_SWEEP_SECONDS", 3600)},
    "sweep-webhooks": {"task": "webhooks.tasks.sweep_webhooks", "schedule": env_int("WEBHOOK_SWEEP_SECONDS", 30)},
    "sweep-data-exports": {
        "task": "notifications.tasks.sweep_data_exports",
        "schedule": env_int("DATA_EXPORT_SWEEP_SECONDS", 3600),
    },
}

# --- Bots and reviews (games/bots/, docs/bots.md) ---------------------------------
BOT_SEARCH_SECONDS: float | None = env_float("BOT_SEARCH_SECONDS", 1.0)
BOT_SEARCH_ITERATIONS: int | None = env_int("BOT_SEARCH_ITERATIONS", 0) or None
BOT_TASK_SECONDS = env_int("BOT_TASK_SECONDS", 20)  # then the task queues itself again
# Post-game review (games/services/review.py, docs/bots.md): "all" finished games,
# only "rated" ones (all seats filled, a person among them) or "off"; the search
# iterations of each of its two searches a move (the cost grows with it).
GAME_REVIEW = env("GAME_REVIEW", "all")
if GAME_REVIEW not in ("all", "rated", "off"):
    raise ImproperlyConfigured("GAME_REVIEW must be all, rated or off.")
GAME_REVIEW_ITERATIONS = env_int("GAME_REVIEW_ITERATIONS", 200)
GAME_REVIEW_LOST_SECONDS = env_int("GAME_REVIEW_LOST_SECONDS", 3600)  # queued this long: its task was lost
# The game-over email of a reviewed game waits this long for the review, to say it is ready
# and link to it; past that (or at once if the review fails) it goes without the link.
GAME_REVIEW_EMAIL_WAIT_SECONDS = env_int("GAME_REVIEW_EMAIL_WAIT_SECONDS", 600)

# --- Play beside the moves ---------------------------------------------------------
# Table talk: how many messages one player may write in one game.
TALK_MESSAGES_PER_MINUTE = env_int("TALK_MESSAGES_PER_MINUTE", 5)
TALK_MESSAGES_PER_DAY = env_int("TALK_MESSAGES_PER_DAY", 200)
# A player whose game page sent a heartbeat this recently is at the table: no turn
# email or reminder for that game (the page beats every minute while visible).
PRESENCE_SECONDS = env_int("PRESENCE_SECONDS", 120)
