"""Create a demo operator, two demo players, a game against bots, and an OAuth
app for command-line clients (examples/bot_client.py).

Run by ``python3 dev.py serve`` so a newcomer has something to look at; safe
to run again (it only creates what is missing).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from oauth2_provider.models import get_application_model

from accounts.models import User
from accounts.services import create_api_token
from games import services
from games.models import Game
from games.services import open_games

DEMO_ADMIN = "admin@example.com"
DEMO_PASSWORD = "manhattan"
DEMO_CLIENT_ID = "demo-bot-client"


class Command(BaseCommand):
    help = "Create a demo admin, demo players with API tokens, and a demo game against bots."

    def handle(self, *args: Any, **options: Any) -> None:
        admin, created = User.objects.get_or_create(email=DEMO_ADMIN, defaults={"is_staff": True, "is_superuser": True})
        if created:
            admin.set_password(DEMO_PASSWORD)
            admin.save()
            self.stdout.write(f"Demo admin: {DEMO_ADMIN} / {DEMO_PASSWORD}")
        player, created = User.objects.get_or_create(email="alice@example.com", defaults={"display_name": "Alice"})
        if created:
            token = create_api_token(user=player, name="demo")
            self.stdout.write(f"Demo player alice@example.com, API token: {token.raw}")
        if not Game.objects.filter(creator=admin).exists():
            game = services.create_game(
                creator=admin,
                options={"players": 4},
                seats=[
                    services.SeatSpec("me"),
                    services.SeatSpec("bot", bot="greedy"),
                    services.SeatSpec("bot", bot="greedy"),
                    services.SeatSpec("bot", bot="random"),
                ],
            )
            # Every seat is taken, so the game was dealt as it was created.
            self.stdout.write(f"Demo game {game.title} ({game.public_id}): the demo admin against three bots.")
        if not Game.objects.filter(listed=True).exists():
            waiting = open_games.open_game(creator=player, players=2, pace="fast", bots_after_hours=1)
            self.stdout.write(f"Open game {waiting.title}: Alice waits in the lobby (/games/lobby/) for one more.")
        app, created = get_application_model().objects.get_or_create(
            client_id=DEMO_CLIENT_ID,
            defaults={
                "name": "Demo bot client",
                "client_type": "public",
                "authorization_grant_type": "urn:ietf:params:oauth:grant-type:device_code",
            },
        )
        if created:
            self.stdout.write(
                f"OAuth app for command-line clients (device grant): client id {app.client_id}"
                f" (python3 examples/bot_client.py --server <site> --client-id {app.client_id} --challenge greedy)"
            )
