"""Moved: the game builders to tests/factories.py, the mail helpers to
tests/support/mail.py. Kept so that tests written against the old place still
import; new tests import from those two."""

from tests.factories import act, digest_time, greedy_move, placement_turn_of, play_until  # noqa: F401
from tests.support.mail import HEX, headline, latest, parts, visible_text, your_turn_by_email  # noqa: F401
