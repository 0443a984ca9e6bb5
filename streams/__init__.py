"""Live event streams (Server-Sent Events) over the games' logs.

The database is the truth; a small wake-up message ("game X is at seq N")
tells listening streams to read what is new. ``games`` does not know this app:
it connects to ``games.signals`` in its ``AppConfig.ready``.
"""
