"""Read by gunicorn from the working directory (the image's /app) at start."""

from typing import Any


def child_exit(server: Any, worker: Any) -> None:
    # A web worker that ended (crashed, or recycled) no longer has streams open.
    from manhattan_site.metrics import forget_process

    forget_process(worker.pid)
