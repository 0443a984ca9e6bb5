"""Shapes of the accounts API: tokens and the signed-in user."""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator
from rest_framework import serializers

from manhattan_site.strict_input import StrictCharField, StrictSerializer

from .scopes import SCOPES, granted_scopes

# A visible character: neither a control character nor a space in either sense that meets a
# name. ``\S`` will not do: Python (which trims the name) counts \x1c-\x1f and \x85 as space,
# the schema's readers (ECMA-262 regular expressions) count \ufeff instead, so a name of those
# alone was valid to one and blank to the other (docs/reliability.md, F5). One explicit class
# means the same in both dialects, so the schema refuses exactly the names the API refuses.
VISIBLE = r"[^\x00-\x20\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"


class ScopeListField(serializers.ListField):
    """Scopes as a list in JSON, stored space-separated (as OAuth writes them)."""

    def to_representation(self, data: Any) -> list[Any]:
        return super().to_representation(str(data).split())

    def to_internal_value(self, data: Any) -> Any:
        return " ".join(dict.fromkeys(super().to_internal_value(data)))


class TokenSerializer(StrictSerializer):
    id = serializers.IntegerField(read_only=True)
    # Names are trimmed: one of only spaces is blank, which the pattern says too (400 invalid).
    name = StrictCharField(max_length=80, validators=[RegexValidator(VISIBLE, "A name needs a visible character.")])
    prefix = serializers.CharField(read_only=True)
    created = serializers.DateTimeField(read_only=True)
    last_used = serializers.DateTimeField(read_only=True, allow_null=True)
    revoked = serializers.DateTimeField(read_only=True, allow_null=True)
    scopes = ScopeListField(
        source="scope",
        child=serializers.ChoiceField(choices=list(SCOPES)),
        required=False,
        allow_empty=False,
        help_text="What the token may do; every scope if left out.",
    )


class NewTokenSerializer(TokenSerializer):
    """A token just made: with the token itself, which is shown this once
    (the caller passes it in the context as ``raw``) and never stored."""

    token = serializers.SerializerMethodField(help_text="The token itself: shown once, never again.")

    def get_token(self, token: Any) -> str:
        return str(self.context["raw"])


class MeSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    email = serializers.EmailField()
    name = serializers.CharField(source="public_name")
    is_staff = serializers.BooleanField()
    is_bot = serializers.BooleanField(help_text="A bot account: plays only through the API, never sent email.")
    scopes = serializers.SerializerMethodField(help_text="What the credentials of this request may do.")

    def get_scopes(self, user: Any) -> list[str]:
        return sorted(granted_scopes(self.context.get("auth")))
