"""Shapes of the accounts API: tokens and the signed-in user."""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator
from rest_framework import serializers


class StrictCharField(serializers.CharField):
    """A string, and only a string: DRF's CharField would store the number 8576
    as "8576", which the schema (type: string) says is refused."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class TokenSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(read_only=True)
    # Names are trimmed: one of only spaces is blank, which the pattern says too.
    name = StrictCharField(max_length=80, validators=[RegexValidator(r"\S", "A name needs a visible character.")])
    prefix = serializers.CharField(read_only=True)
    created = serializers.DateTimeField(read_only=True)
    last_used = serializers.DateTimeField(read_only=True, allow_null=True)
    revoked = serializers.DateTimeField(read_only=True, allow_null=True)


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
