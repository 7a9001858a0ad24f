"""Statements compiled once, run on the raw driver cursor: the store's hot path.

Building and executing a SQLAlchemy Core statement costs far more than running
the same SQL on the DBAPI cursor (docs/measurements.md). The crawl runs
a handful of statements per document, so the store compiles each of them
once, for whatever database the URL names, and runs it on the connection's
own DBAPI connection, inside the transaction SQLAlchemy began (SQLite's
sqlite3, PostgreSQL's psycopg 3, which also prepares a statement on the
server once it has run a few times).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from operator import itemgetter
from typing import Any, cast

from sqlalchemy.engine import Connection
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler

from webcrawler.database import dialects


class Prepared:
    """One statement, compiled for the connection's dialect; call `rows`, `one`, `run`."""

    def __init__(self, conn: Connection, statement: ClauseElement) -> None:
        compiled = cast(SQLCompiler, statement.compile(dialect=conn.dialect))  # DML and SELECT
        self.sql = str(compiled)
        self._conn = conn
        self._defaults: dict[str, Any] = dict(compiled.construct_params(_check=False))
        self._order = list(compiled.positiontup or ()) if compiled.positional else None
        # the positional values in one C call (itemgetter of one name gives a value, not a tuple)
        self._pick: Callable[[Mapping[str, Any]], tuple[Any, ...]] | None = None
        if self._order:
            getter = itemgetter(*self._order)
            self._pick = getter if len(self._order) > 1 else lambda values: (getter(values),)
        clean = dialects.param_cleaner(conn.dialect.name)
        self._plain = clean is None  # the values go to the driver as given
        if clean is not None:  # PostgreSQL; SQLite's hot path stays as it was
            plain = self._params
            self._params = lambda given: plain(clean(given))  # type: ignore[method-assign]

    def _params(self, given: Mapping[str, Any]) -> tuple[Any, ...] | dict[str, Any]:
        values = {**self._defaults, **given} if given else self._defaults
        if self._order is None:
            return values
        return self._pick(values) if self._pick is not None else ()

    def _cursor(self) -> Any:
        if not self._conn.in_transaction():
            self._conn.begin()
        return self._conn.connection.driver_connection.cursor()  # type: ignore[union-attr]

    def _executed(self, given: Mapping[str, Any]) -> Any:
        """A cursor that ran the statement; the caller closes it (a plain try/finally: the
        store runs a few statements a page, and a context manager's frames cost as much as
        the call they wrap)."""
        cursor = self._cursor()
        try:
            cursor.execute(self.sql, self._params(given))
        except BaseException:
            cursor.close()
            raise
        return cursor

    def rows(self, **given: Any) -> list[tuple[Any, ...]]:
        cursor = self._executed(given)
        try:
            return cursor.fetchall()
        finally:
            cursor.close()

    def one(self, **given: Any) -> tuple[Any, ...] | None:
        """The first row, or None."""
        cursor = self._executed(given)
        try:
            return cursor.fetchone()
        finally:
            cursor.close()

    def row(self, **given: Any) -> tuple[Any, ...]:
        """The row a statement always returns (INSERT ... RETURNING, a row known to exist);
        LookupError if there is none."""
        found = self.one(**given)
        if found is None:
            raise LookupError(f"no row for {self.sql!r}")
        return found

    def run(self, **given: Any) -> None:
        self._executed(given).close()

    def run_many(self, rows: Iterable[Mapping[str, Any]]) -> None:
        self._run_params([self._params(row) for row in rows])

    def run_many_values(self, names: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        """`run_many` of rows given as values in the order of `names`: where the statement
        takes exactly those, in that order, positionally (SQLite), the rows go to the driver
        as they are (a page's links: no dict a row to build and read back)."""
        if self._plain and self._order == list(names):
            self._run_params(rows if isinstance(rows, list) else list(rows))
        else:
            self._run_params([self._params(dict(zip(names, row, strict=True))) for row in rows])

    def _run_params(self, params: Sequence[Any]) -> None:
        if not params:
            return
        cursor = self._cursor()
        try:
            cursor.executemany(self.sql, params)
        finally:
            cursor.close()
