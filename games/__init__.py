"""The Manhattan games app.

Kept free of Django imports so that ``games.engine`` can be imported (and the
simulator run) without configuring Django settings.
"""
