"""Live event streams (streams/): how processes wake each other and how long a stream lives."""

from __future__ import annotations

from .core import REDIS_URL
from .environment import env, env_float, env_int

# Wake-ups go through Redis pub/sub on this channel when REDIS_URL is set (every
# process's streams hear every move); without it, streams are woken in-process and
# a watcher looks for changes by other processes (the worker) every POLL seconds.
STREAMS_REDIS_URL = env("STREAMS_REDIS_URL", REDIS_URL)
STREAMS_CHANNEL = env("STREAMS_CHANNEL", "manhattan:streams")
STREAMS_POLL_SECONDS = env_float("STREAMS_POLL_SECONDS", 0.0 if STREAMS_REDIS_URL else 1.0)
STREAMS_HEARTBEAT_SECONDS = env_float("STREAMS_HEARTBEAT_SECONDS", 15.0)
STREAMS_PER_USER = env_int("STREAMS_PER_USER", 10)
# Redis connections a process uses for the streams' slots at most (a burst waits for one).
STREAMS_REDIS_MAX_CONNECTIONS = env_int("STREAMS_REDIS_MAX_CONNECTIONS", 20)
STREAMS_IDLE_SECONDS = env_float("STREAMS_IDLE_SECONDS", 3600.0)  # without an event: then the client reconnects
STREAMS_SEND_TIMEOUT_SECONDS = env_float("STREAMS_SEND_TIMEOUT_SECONDS", 30.0)  # a reader this slow is dropped
STREAMS_RETRY_MS = env_int("STREAMS_RETRY_MS", 2000)  # how soon EventSource reconnects
