"""Closing an account: the person leaves, their games stay whole.

Everything that lets anyone act as the person ends at once: sessions (the
account can no longer sign in, and its password hash changes, so every
session fails its check), API tokens, OAuth tokens, grants and device codes,
and the OAuth apps they registered. Their address is replaced by one that
cannot receive mail (``closed-<id>@closed.invalid``), so nothing is ever sent
to it again, and it is free to register anew as a new person. Their name
becomes "former player N" wherever a name is shown, because every page,
record and leaderboard reads the name from the account. The other apps erase
what they keep of the person when ``account_closed`` is sent (preferences,
presence, pending emails, profile settings, webhooks) and put the bot in
their seats; games and ratings are not rewritten, so logs still fold to the
same records and nobody else's rating changes.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from oauth2_provider.models import (
    get_access_token_model,
    get_application_model,
    get_device_grant_model,
    get_grant_model,
    get_id_token_model,
    get_refresh_token_model,
)

from .models import ApiToken, User
from .signals import account_closed

CLOSED_DOMAIN = "closed.invalid"  # a reserved name (RFC 2606): mail to it goes nowhere


def closed_address(user: User) -> str:
    return f"closed-{user.pk}@{CLOSED_DOMAIN}"


def close_account(*, user: User) -> bool:
    """Close ``user``'s account; False if it was closed already."""
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=user.pk)
        if user.closed is not None:
            return False
        email = user.email
        ApiToken.objects.filter(user=user).delete()
        get_refresh_token_model().objects.filter(user=user).delete()
        get_access_token_model().objects.filter(user=user).delete()
        get_id_token_model().objects.filter(user=user).delete()
        get_grant_model().objects.filter(user=user).delete()
        get_device_grant_model().objects.filter(user=user).delete()
        get_application_model().objects.filter(user=user).delete()  # their tokens for others go with them
        user.email = closed_address(user)
        user.display_name = ""
        user.first_name = ""
        user.last_name = ""
        user.language = ""
        user.time_zone = ""
        user.is_active = False
        user.set_unusable_password()
        user.closed = timezone.now()
        user.save()
        account_closed.send(sender=User, user=user, email=email)
        return True
