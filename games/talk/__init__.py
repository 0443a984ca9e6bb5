"""Table talk: short messages between the players of a game, on the page,
through the API and in email replies; players can mute each other and
operators can hide a message (the record keeps who hid it and when)."""
