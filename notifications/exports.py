"""Download my data: a person's account, preferences, every game's record and
their own table messages, as one JSON document.

Asking (``GET /api/v1/me/export`` or the button on the preferences page)
queues a worker task and answers at once (202); the task builds the document
and emails a signed link to it. The link works for ``EXPORT_DAYS`` days; the
periodic sweep then deletes the document. While one export is being built,
asking again queues nothing more.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.core import signing
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games import engine, store
from games.models import Game
from games.talk.models import TableMessage

from . import outbox
from .models import DataExport, Kind, Notification

logger = logging.getLogger(__name__)
EXPORT_DAYS = 7
BUILD_TASK = "notifications.tasks.build_data_export"
_SALT = "notifications.data-export"


def request_export(*, user: User) -> DataExport:
    """The export being built for ``user``, or a new one queued for the worker."""
    with transaction.atomic():
        User.objects.select_for_update().get(pk=user.pk)  # one request at a time decides
        pending = DataExport.objects.filter(user=user, ready__isnull=True).first()
        if pending is not None:
            return pending
        export = DataExport.objects.create(user=user)
        transaction.on_commit(lambda: _queue(export.pk))
        return export


def _queue(export_id: int) -> None:
    try:
        current_app.send_task(BUILD_TASK, args=[export_id])
    except Exception:  # the broker is down: the sweep builds what is still waiting
        logger.warning("could not queue data export %s", export_id, exc_info=True)


def build(export_id: int) -> bool:
    """Build the document of export ``export_id`` and email its link; False if
    there is nothing to do (built already, or deleted)."""
    with transaction.atomic():
        export = DataExport.objects.select_for_update().select_related("user").filter(pk=export_id).first()
        if export is None or export.ready is not None:
            return False
        user = export.user
        export.document = document_for(user)
        export.ready = timezone.now()
        export.save(update_fields=["document", "ready"])
        expires = export.ready + timedelta(days=EXPORT_DAYS)
        outbox.enqueue(
            kind=Kind.DATA_EXPORT,
            key=Notification.key_for(Kind.DATA_EXPORT, subject=user.email, detail=str(export.pk)),
            email=user.email,
            user=user,
            context={"link": download_url(export), "expires": expires.isoformat()},
        )
        return True


def document_for(user: User) -> dict[str, Any]:
    """Everything kept about ``user`` that is theirs to take, in JSON."""
    preference = outbox.preference_for(user)  # the defaults, if never changed
    games = []
    for game in store.games_of(user).order_by("created"):
        seat = next((s.index for s in game.seats.all() if s.user_id == user.pk), None)
        entry: dict[str, Any] = {
            "id": str(game.public_id),
            "name": game.title,
            "status": game.status,
            "created": game.created.isoformat(),
            "finished": game.finished.isoformat() if game.finished else None,
            "my_seat": seat,
            "players": [s.user.public_name if s.user else (s.bot or "") for s in game.seats.all()],
        }
        if game.status == Game.Status.FINISHED:
            entry["record"] = engine.game_record(store.event_payloads(game))
        games.append(entry)
    messages = [
        {"game": str(m.game.public_id), "seat": m.seat, "text": m.text, "via": m.via, "created": m.created.isoformat()}
        for m in TableMessage.objects.filter(author=user).select_related("game").order_by("created")
    ]
    return {
        "format": "manhattan-data-export/1",
        "created": timezone.now().isoformat(),
        "account": {
            "id": user.pk,
            "email": user.email,
            "name": user.public_name,
            "display_name": user.display_name,
            "language": user.language,
            "time_zone": user.time_zone,
            "bot_account": user.is_bot,
            "joined": user.date_joined.isoformat(),
        },
        "preferences": {
            "frequency": preference.frequency,
            "unsubscribed": preference.unsubscribed,
            "vacation_until": preference.vacation_until.isoformat() if preference.vacation_until else None,
            "digest_hour": preference.digest_hour,
        },
        "games": games,
        "messages": messages,
    }


def download_url(export: DataExport) -> str:
    token = signing.dumps({"export": export.pk, "user": export.user_id}, salt=_SALT)
    return settings.SITE_URL.rstrip("/") + reverse("notifications:export_download", args=[token])


def read_link(token: str) -> DataExport | None:
    """The ready export a download link names, if the link is genuine and not expired."""
    try:
        data = signing.loads(token, salt=_SALT, max_age=timedelta(days=EXPORT_DAYS))
    except signing.BadSignature:  # also SignatureExpired
        return None
    if not isinstance(data, dict) or not isinstance(data.get("export"), int) or not isinstance(data.get("user"), int):
        return None
    return DataExport.objects.filter(
        pk=data["export"], user_id=data["user"], ready__isnull=False, user__closed__isnull=True
    ).first()


def sweep(now: Any = None) -> int:
    """Delete the exports whose link has expired; queue again any that no worker built. The number deleted."""
    now = now or timezone.now()
    deleted, _ = DataExport.objects.filter(created__lt=now - timedelta(days=EXPORT_DAYS)).delete()
    stuck = DataExport.objects.filter(ready__isnull=True, created__lt=now - timedelta(minutes=10))
    for export_id in stuck.values_list("pk", flat=True)[:100]:
        _queue(export_id)
    return deleted
