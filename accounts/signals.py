"""What the accounts app announces: it sends no email itself.

``sign_in_link_requested`` (``user``, ``next_path``): someone asked for a
sign-in link for ``user``; the app that writes emails sends it.

``address_confirmed`` (``user``): ``user`` signed in with a sign-in link, which
proves that mail to their address arrives (a bouncing address is cleared).
"""

from django.dispatch import Signal

sign_in_link_requested = Signal()
address_confirmed = Signal()
