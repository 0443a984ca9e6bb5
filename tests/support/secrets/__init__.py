"""The secret crawler's harness, by concern: the truth, the crawler, the tables."""
