"""Rate the bot levels from saved arena matches and write the file the seat choices show."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.levels import LEVEL_RATINGS_FILE
from ratings.levels import rate_levels, read_match


class Command(BaseCommand):
    help = (
        "Rate the bot levels (OpenSkill, as the ratings app rates) from arena matches saved with "
        "'python -m games.engine arena --save FILE', in the order given, and write the ratings file."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("matches", nargs="+", type=Path, help="saved matches (JSON Lines), neighbours in order")
        parser.add_argument("--output", type=Path, default=LEVEL_RATINGS_FILE)
        parser.add_argument("--commit", default="", help="the commit whose engine played the matches")
        parser.add_argument("--note", default="", help="how the matches were played, for the file's readers")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            matches = [(path.name, read_match(path)) for path in options["matches"]]
            result = rate_levels(matches)
        except (OSError, ValueError, KeyError) as error:
            raise CommandError(str(error)) from error
        body = {
            "method": "OpenSkill Plackett-Luce (ratings.services.MODEL); rating = mu - 3 sigma, as shown for players",
            "measured": datetime.date.today().isoformat(),
            "commit": options["commit"],
            "note": options["note"],
            **result,
        }
        options["output"].write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
        rated = ", ".join(f"{k} {v['rating']:.1f} ({v['games']} games)" for k, v in result["levels"].items())
        self.stdout.write(f"{rated}; not rated: {', '.join(result['not_rated']) or 'none'}")
