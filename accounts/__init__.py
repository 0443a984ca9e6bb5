"""Users (email is the login) and personal API tokens."""
