"""The bodies of the players and leaderboard API (read from ``ratings.profiles``' records)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from games.engine.bots import SEAT_BOTS
from manhattan_site.strict_input import StrictSerializer


class RatingPointSerializer(serializers.Serializer[Any]):
    game = serializers.UUIDField(help_text="The game that moved the rating.")
    at = serializers.DateTimeField()
    rating = serializers.FloatField(help_text="The shown rating (mu - 3 sigma) after the game.")
    rank = serializers.IntegerField(min_value=1, max_value=4, help_text="The place in that game (1: won).")


class RatingSummarySerializer(serializers.Serializer[Any]):
    players = serializers.IntegerField(min_value=2, max_value=4, help_text="Ratings are kept per player count.")
    rating = serializers.FloatField(help_text="The shown rating: a conservative estimate, mu - 3 sigma.")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    games = serializers.IntegerField(min_value=0, help_text="Rated games played.")
    provisional = serializers.BooleanField(help_text="Fewer than 10 rated games: the number may still move a lot.")
    history = RatingPointSerializer(many=True, help_text="The rating after each rated game, oldest first.")


class CountRecordSerializer(serializers.Serializer[Any]):
    players = serializers.IntegerField(min_value=2, max_value=4)
    games = serializers.IntegerField(min_value=0)
    wins = serializers.IntegerField(min_value=0)


class OpponentSerializer(serializers.Serializer[Any]):
    player_id = serializers.IntegerField(allow_null=True, help_text="Null for a bot or a hidden profile.")
    name = serializers.CharField(allow_blank=True, help_text="Empty for a bot or a hidden profile.")
    bot = serializers.ChoiceField(choices=["", *SEAT_BOTS], help_text="The bot's kind; empty for a person.")


class RecentGameSerializer(serializers.Serializer[Any]):
    game = serializers.UUIDField()
    players = serializers.IntegerField(min_value=2, max_value=4)
    finished = serializers.DateTimeField()
    score = serializers.IntegerField()
    rank = serializers.IntegerField(min_value=1, max_value=4)
    won = serializers.BooleanField()
    resigned = serializers.BooleanField()
    rated = serializers.BooleanField()
    opponents = OpponentSerializer(many=True)


class HeadToHeadSerializer(serializers.Serializer[Any]):
    opponent_id = serializers.IntegerField()
    opponent = serializers.CharField()
    games = serializers.IntegerField(min_value=0, help_text="Finished games both played.")
    ahead = serializers.IntegerField(min_value=0, help_text="Games the player finished above the opponent.")
    behind = serializers.IntegerField(min_value=0)
    level = serializers.IntegerField(min_value=0, help_text="Games they finished in the same place.")


class ProfileSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(source="user.pk")
    name = serializers.CharField(source="user.public_name")
    hidden = serializers.BooleanField(help_text="Only the player sees a hidden profile.")
    games = serializers.IntegerField(min_value=0, help_text="Finished games.")
    wins = serializers.IntegerField(min_value=0)
    average_score = serializers.FloatField(allow_null=True, help_text="Mean final score; null before a game.")
    by_players = CountRecordSerializer(many=True, help_text="Games and wins by player count.")
    ratings = RatingSummarySerializer(many=True)
    recent = RecentGameSerializer(many=True, help_text="The newest finished games.")
    head_to_head = HeadToHeadSerializer(allow_null=True, help_text="Against ?opponent=<id>; null without it.")


class ProfileSettingsSerializer(StrictSerializer):
    hidden = serializers.BooleanField(help_text="Hide the profile from everyone else, and from the leaderboards.")


class LeaderboardEntrySerializer(serializers.Serializer[Any]):
    position = serializers.IntegerField(min_value=1)
    player_id = serializers.IntegerField(allow_null=True, help_text="Null for a bot.")
    name = serializers.CharField(allow_blank=True)
    bot = serializers.ChoiceField(choices=["", *SEAT_BOTS], help_text="The bot's kind; empty for a person.")
    rating = serializers.FloatField()
    games = serializers.IntegerField(min_value=0)
    provisional = serializers.BooleanField()


class LeaderboardSerializer(serializers.Serializer[Any]):
    players = serializers.IntegerField(min_value=2, max_value=4)
    entries = LeaderboardEntrySerializer(many=True)
