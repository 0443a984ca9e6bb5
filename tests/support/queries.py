"""The statements a request sent, named by their verb and their table, as the
query-count tests pin them."""

from __future__ import annotations

import re
from typing import Any


def _outside_parentheses(sql: str) -> str:
    """``sql`` without what stands in parentheses: a subquery (an ``EXISTS (...)``
    in the select list), a column list, values. What is left names the statement's own table."""
    depth, kept = 0, []
    for char in sql:
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(depth - 1, 0)
        elif depth == 0:
            kept.append(char)
    return "".join(kept)


def statement_names(queries: list[dict[str, Any]]) -> list[str]:
    """Each statement as its verb and its own table, e.g. "SELECT games_game".

    Inside the test's own transaction a request's transaction is a savepoint:
    it is named BEGIN and COMMIT here, as it is when a request runs alone."""
    named = []
    for query in queries:
        sql = query["sql"]
        verb = {"SAVEPOINT": "BEGIN", "RELEASE": "COMMIT"}.get(sql.split()[0].upper(), sql.split()[0].upper())
        if verb in ("BEGIN", "COMMIT"):
            named.append(verb)
            continue
        table = re.search(r'(?:FROM|INTO|UPDATE)\s+"?(\w+)"?', _outside_parentheses(sql))
        named.append(f"{verb} {table.group(1) if table else ''}".strip())
    return named


def mentions(queries: list[dict[str, Any]], table: str) -> list[str]:
    """The statements whose SQL names ``table`` anywhere, subqueries included."""
    return [query["sql"] for query in queries if f'"{table}"' in query["sql"]]
