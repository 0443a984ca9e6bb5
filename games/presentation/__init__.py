"""One vocabulary for everything people read about a game: the pages, the
emails and the admin. Colour and seat names, labels, the board's cells, the
players' rows and the log as sentences, all from secret-free engine views and
redacted events, every word through translation. Templates draw them."""
