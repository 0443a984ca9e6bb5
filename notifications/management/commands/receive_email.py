"""Read one raw RFC 822 message on stdin and treat it as a reply to a game email.

For mail servers that pipe incoming mail into a command (e.g. a Postfix alias:
``play: "|/app/manage.py receive_email"``).
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand

from notifications.inbound import mime
from notifications.replies import handle_inbound


class Command(BaseCommand):
    help = "Play the move in a raw email read from standard input."

    def handle(self, *args: Any, **options: Any) -> None:
        message = mime.parse(sys.stdin.buffer.read())
        outcome = handle_inbound(message)
        self.stdout.write(("accepted: " if outcome.accepted else "refused: ") + outcome.reason)
