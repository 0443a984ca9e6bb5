"""Hand-written SQL for the few statements that every API request makes.

Why: the ORM builds a query's SQL anew on every call, and for a one-row
lookup that costs several times the database round trip itself (a token
lookup with its user: ~1.3 ms of CPU through ``select_related(...).get()``
against ~0.3 ms as SQL on a cursor; see docs/benchmarks.md). The token of
every request and the game of every move are read this way, and a move's
event and game row are written this way; everything else stays with the ORM.

What keeps them honest: the column lists come from the models'
metadata (a new field is read without touching the SQL), each value goes
through the same converters the ORM applies (SQLite's booleans and dates,
JSON fields), and the instances are built with ``Model.from_db`` as the ORM
builds them; values written go through the fields' ``pre_save`` and
``get_db_prep_save``, as in the ORM's INSERT and UPDATE. ``tests/test_sql.py``
holds each statement equal to its ORM counterpart.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from django.db import DatabaseError, connections, router
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model

M = TypeVar("M", bound=Model)
Converter = Callable[[Any, Any, BaseDatabaseWrapper], Any]


class Columns(Generic[M]):
    """The concrete columns of ``model`` (all, or ``only`` these fields), read
    under a table alias, and the values or the instance built back from them."""

    def __init__(self, model: type[M], alias: str, only: Sequence[str] = ()) -> None:
        self.model = model
        self.alias = alias
        self.fields: list[Field[Any, Any]] = [
            field for field in model._meta.concrete_fields if not only or field.name in only
        ]
        self.names = [field.attname for field in self.fields]
        # The ORM's column expressions: converters are given one, not a field.
        self.columns = [field.get_col(model._meta.db_table) for field in self.fields]
        self._converters: dict[str, list[list[Converter]]] = {}

    def __len__(self) -> int:
        return len(self.fields)

    def select(self, connection: BaseDatabaseWrapper) -> str:
        """``alias."column", …`` for a SELECT list."""
        quote = connection.ops.quote_name
        return ", ".join(f"{quote(self.alias)}.{quote(_column_name(field))}" for field in self.fields)

    def column(self, connection: BaseDatabaseWrapper, name: str) -> str:
        """``alias."column"`` of the field ``name`` (``"pk"`` for the primary key)."""
        quote = connection.ops.quote_name
        field = self.model._meta.pk if name == "pk" else self.model._meta.get_field(name)
        assert isinstance(field, Field)
        return f"{quote(self.alias)}.{quote(_column_name(field))}"

    def table(self, connection: BaseDatabaseWrapper) -> str:
        """``"table" alias`` for a FROM or JOIN clause."""
        quote = connection.ops.quote_name
        return f"{quote(self.model._meta.db_table)} {quote(self.alias)}"

    def build(self, connection: BaseDatabaseWrapper, values: Sequence[Any]) -> M:
        """The instance the ORM would have built from these values."""
        return self.model.from_db(connection.alias, self.names, self.convert(connection, values))

    def convert(self, connection: BaseDatabaseWrapper, values: Sequence[Any]) -> list[Any]:
        """The values as the ORM would have them (e.g. a JSON field's decoded)."""
        converted = list(values)
        for i, converters in enumerate(self.converters(connection)):
            for converter in converters:
                converted[i] = converter(converted[i], self.columns[i], connection)
        return converted

    def converters(self, connection: BaseDatabaseWrapper) -> list[list[Converter]]:
        """Per column, what the ORM's compiler applies to a value read from
        ``connection``: the backend's converters, then the field's."""
        known = self._converters.get(connection.alias)
        if known is None:
            known = []
            for column in self.columns:
                known.append([*connection.ops.get_db_converters(column), *column.get_db_converters(connection)])
            self._converters[connection.alias] = known
        return known


def joined_select(
    connection: BaseDatabaseWrapper, left: Columns[Any], right: Columns[Any], on: tuple[str, str], *, outer: bool = True
) -> str:
    """``SELECT`` every column of ``left`` and of ``right`` ``FROM`` the one
    ``JOIN`` the other ``ON left.<on[0]> = right.<on[1]>`` (an outer join
    unless ``outer`` is false): the start of a two-table read, to which the
    caller adds its conditions."""
    join = "LEFT OUTER JOIN" if outer else "INNER JOIN"
    return (
        f"SELECT {left.select(connection)}, {right.select(connection)}"
        f" FROM {left.table(connection)} {join} {right.table(connection)}"
        f" ON {left.column(connection, on[0])} = {right.column(connection, on[1])}"
    )


def insert(connection: BaseDatabaseWrapper, objects: Sequence[Model]) -> None:
    """INSERT ``objects`` (of one model, primary keys left to the database) in
    one statement: ``bulk_create`` without reading the new ids back. Raises
    ``IntegrityError`` as ``bulk_create`` does."""
    if not objects:
        return
    model = type(objects[0])
    fields = [field for field in model._meta.local_concrete_fields if not field.primary_key]
    quote = connection.ops.quote_name
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    params = [
        field.get_db_prep_save(field.pre_save(instance, add=True), connection)
        for instance in objects
        for field in fields
    ]
    sql = (
        f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(_column_name(f)) for f in fields)})"
        f" VALUES {', '.join([row] * len(objects))}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def update(connection: BaseDatabaseWrapper, instance: Model, names: Sequence[str]) -> None:
    """UPDATE these fields of ``instance``'s row: ``save(update_fields=names)``
    (``auto_now`` fields are set, as ``save`` sets them). Raises
    ``DatabaseError`` if the row is gone, as ``save`` does."""
    meta = instance._meta
    fields = [meta.get_field(name) for name in names]
    quote = connection.ops.quote_name
    assignments, params = [], []
    for field in fields:
        assert isinstance(field, Field)
        assignments.append(f"{quote(_column_name(field))} = %s")
        params.append(field.get_db_prep_save(field.pre_save(instance, add=False), connection))
    params.append(instance.pk)
    assert meta.pk is not None
    sql = f"UPDATE {quote(meta.db_table)} SET {', '.join(assignments)} WHERE {quote(_column_name(meta.pk))} = %s"
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        if cursor.rowcount != 1:
            raise DatabaseError(f"{meta.label} {instance.pk} was not updated ({cursor.rowcount} rows).")


def attach_prefetched(instance: Model, relation: str, objects: list[Any]) -> None:
    """Make ``objects`` what ``instance.<relation>.all()`` returns, with no
    query: kept where and as ``prefetch_related_objects`` keeps what it reads
    (the steps of Django's ``prefetch_one_level``) for a reverse foreign key."""
    manager: Any = getattr(instance, relation)
    queryset = manager.get_queryset()
    queryset._result_cache = objects
    queryset._prefetch_done = True  # the objects' own relations are not prefetched
    cache = instance.__dict__.setdefault("_prefetched_objects_cache", {})
    cache[manager.field.remote_field.cache_name] = queryset


def _column_name(field: Field[Any, Any]) -> str:
    if field.column is None:
        raise ValueError(f"{field} has no column")
    return field.column


def connection_for_read(model: type[Model]) -> BaseDatabaseWrapper:
    """The connection the ORM would read ``model`` from."""
    return connections[router.db_for_read(model)]


def connection_for_write(model: type[Model]) -> BaseDatabaseWrapper:
    """The connection the ORM would write ``model`` to (and lock its rows on)."""
    return connections[router.db_for_write(model)]
