"""Replies are recognised by a hash of their whole Message-ID, not by its
first 200 characters (two different replies could share those); and a
refusal reason for messages nested too deeply to read."""

import hashlib

from django.db import migrations, models


def hash_the_stored_ids(apps, schema_editor):
    # The ids stored before were cut to 200 characters: their hash is the best there is.
    Reply = apps.get_model("notifications", "Reply")
    for reply in Reply.objects.only("pk", "message_id").iterator():
        digest = hashlib.sha256(reply.message_id.encode("utf-8", "surrogatepass")).hexdigest()
        Reply.objects.filter(pk=reply.pk).update(message_hash=digest)


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0004_seat_answered_kind"),
    ]

    operations = [
        migrations.AddField(
            model_name="reply",
            name="message_hash",
            field=models.CharField(max_length=64, null=True),
        ),
        migrations.RunPython(hash_the_stored_ids, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="reply",
            name="message_hash",
            field=models.CharField(
                help_text="SHA-256 of the whole Message-ID: two ids alike in 200 characters differ.",
                max_length=64,
                unique=True,
            ),
        ),
        migrations.AlterField(
            model_name="reply",
            name="message_id",
            field=models.CharField(help_text="The Message-ID, cut to 200 characters (to read).", max_length=200),
        ),
        migrations.AlterField(
            model_name="inboundrefusal",
            name="reason",
            field=models.CharField(
                choices=[
                    ("no_token", "No valid reply address"),
                    ("unknown_email", "The address names no game email"),
                    ("wrong_sender", "Not from the player's address"),
                    ("forged_sender", "Neither SPF nor DKIM passed for the player's domain"),
                    ("auto_reply", "An automatic reply"),
                    ("unreadable", "Nested too deeply to read"),
                    ("game_over", "The game is over"),
                    ("stale", "A reply to an earlier position"),
                    ("capped", "Too many refusals to this player"),
                ],
                max_length=20,
            ),
        ),
    ]
