"""Emails and reminders (turn emails, the outbox, the reminder sweep)."""
