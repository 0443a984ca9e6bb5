"""Notification models arrive with play by email."""
