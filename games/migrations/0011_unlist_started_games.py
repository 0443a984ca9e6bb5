"""Games dealt before starting cleared the lobby's ``listed`` flag kept it, and
with it stayed readable by anyone: take every game that has left the lobby out."""

from typing import Any

from django.db import migrations


def unlist_started_games(apps: Any, schema_editor: Any) -> None:
    Game = apps.get_model("games", "Game")
    Game.objects.filter(listed=True).exclude(status="lobby").update(listed=False)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0010_play_now_line"),
    ]

    operations = [
        migrations.RunPython(unlist_started_games, migrations.RunPython.noop),
    ]
