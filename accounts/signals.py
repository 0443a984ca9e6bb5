"""What the accounts app announces: it sends no email itself.

``sign_in_link_requested`` (``user``, ``next_path``): someone asked for a
sign-in link for ``user``; the app that writes emails sends it.

``address_confirmed`` (``user``): ``user`` signed in with a sign-in link, which
proves that mail to their address arrives (a bouncing address is cleared).

``account_closed`` (``user``, ``email``): the person closed their account;
``user`` is already "former player N" with no address, ``email`` was theirs.
Every app erases what it keeps of the person (preferences, presence, pending
emails, profile) and gives their seats in games to the bot, in the same
transaction. Sent once per account.
"""

from django.dispatch import Signal

sign_in_link_requested = Signal()
address_confirmed = Signal()
account_closed = Signal()
