"""Mail that comes in: replies to game emails.

``webhook`` receives it from the mail provider (only the configured one's
route is mounted), ``body`` finds the move in a reply however its client wrote
it, ``screening`` drops automatic replies and forged senders and cleans what
is stored, and ``notifications.replies`` plays the move through the games'
services or answers why not.
"""
