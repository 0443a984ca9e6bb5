"""Print the DNS records that let receivers trust the site's mail: SPF, the
DKIM key of the configured selector, and DMARC (docs/operators/email.md)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from notifications import dkim_signing


class Command(BaseCommand):
    help = "Print the SPF, DKIM and DMARC records to publish for the mail domain (DKIM_DOMAIN)."

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DKIM_DOMAIN:
            raise CommandError("set DKIM_DOMAIN (and DKIM_SELECTOR, DKIM_PRIVATE_KEY) first")
        for name, kind, value in dkim_signing.dns_records():
            self.stdout.write(f'{name}.\t{kind}\t"{value}"')
