"""wasmenv: what Python tool code imports.

It runs inside the sandboxed interpreter and reaches the outside world only
through the wasmenv host ABI that Go tool code uses too (sdk/wire, encoded
and decoded by the interpreter's C glue): SQL with parameters on the
episode's copy-on-write database, the episode's clock and
seeded random source, and a log line.

    from wasmenv import query, execute, ToolError

    def get_user(user_id: str) -> dict:
        \"\"\"Returns a user's profile.

        Args:
            user_id: The user's id, such as 'u1'.
        \"\"\"
        rows = query("SELECT id, name FROM users WHERE id = ?", user_id)
        if not rows:
            raise ToolError(f"user {user_id} not found")
        return rows[0]

A raised ToolError (or any other exception) becomes a tool error the agent
sees, and the call's writes are rolled back.
"""

import datetime as _datetime
import json as _json

import _wasmenv

__all__ = ["ToolError", "data", "query", "query_one", "execute", "insert", "now", "random", "randint", "log"]


class ToolError(Exception):
    """An error the agent sees as the tool's answer ("Error: <message>")."""


def query(sql: str, *params) -> list:
    """Runs a SELECT and returns its rows as dicts (column name -> value)."""
    rows = _wasmenv.query(sql, params)
    if type(rows) is str:
        raise ToolError(rows)
    return rows


def query_one(sql: str, *params):
    """Runs a SELECT and returns its first row as a dict, or None."""
    rows = _wasmenv.query(sql, params)
    if type(rows) is str:
        raise ToolError(rows)
    return rows[0] if rows else None


def execute(sql: str, *params) -> int:
    """Runs an INSERT, UPDATE or DELETE and returns the rows it changed."""
    r = _wasmenv.execute(sql, params)
    if type(r) is str:
        raise ToolError(r)
    return r[0]


def insert(sql: str, *params) -> int:
    """Runs an INSERT and returns the new row's rowid."""
    r = _wasmenv.execute(sql, params)
    if type(r) is str:
        raise ToolError(r)
    return r[1]


def now() -> _datetime.datetime:
    """The episode's clock (it starts at the environment's clock and advances per call)."""
    ns = _wasmenv.clock()
    return _datetime.datetime.fromtimestamp(ns // 1_000_000_000, _datetime.timezone.utc).replace(
        microsecond=(ns % 1_000_000_000) // 1000)


def random() -> float:
    """A float in [0, 1) from the episode's seeded random source."""
    return (_wasmenv.random() >> 11) / 9007199254740992.0


def randint(a: int, b: int) -> int:
    """An int in [a, b] from the episode's seeded random source."""
    if b < a:
        raise ValueError("randint: empty range")
    return a + _wasmenv.random() % (b - a + 1)


def log(message: str) -> None:
    """Writes a line to the operator's log (not seen by the agent)."""
    _wasmenv.log(str(message))


# Document state: τ-bench's and EnvScaler's style, a dict of collections of
# JSON records, backed by the episode's database. A collection is a table
# (id TEXT PRIMARY KEY, data TEXT) holding each record as the text
# json.dumps writes (the layout of the Go ports, sdk/py). Records read in a
# call are parsed once and cached for that call; when the tool returns, each
# record whose json.dumps text changed is written back, so a read-modify
# tool written against dicts changes only the rows it changed, and diffs and
# state hashes stay in proportion. Nothing is kept after the call.

class _Collection:
    """data["orders"]: a mapping of record id -> record (a dict)."""

    __slots__ = ("_table", "_cache")

    def __init__(self, table):
        self._table = table
        self._cache = {}  # id -> [record, stored text or None (new)]

    def _load(self, key):
        hit = self._cache.get(key)
        if hit is not None:
            return hit[0]
        rows = _wasmenv.query(f'SELECT data FROM "{self._table}" WHERE id = ?', (key,))
        if type(rows) is str:
            raise ToolError(rows)
        if not rows:
            return None
        text = rows[0]["data"]
        record = _json.loads(text)
        self._cache[key] = [record, text]
        return record

    def __getitem__(self, key):
        record = self._load(key)
        if record is None:
            raise KeyError(key)
        return record

    def get(self, key, default=None):
        record = self._load(key)
        return default if record is None else record

    def __contains__(self, key):
        return self._load(key) is not None

    def __setitem__(self, key, record):
        if not isinstance(key, str):
            raise TypeError("record ids are strings")
        hit = self._cache.get(key)
        if hit is not None:
            hit[0] = record
        else:
            self._load(key)
            hit = self._cache.get(key)
            if hit is not None:
                hit[0] = record
            else:
                self._cache[key] = [record, None]

    def __delitem__(self, key):
        if self._load(key) is None:
            raise KeyError(key)
        del self._cache[key]
        _check(_wasmenv.execute(f'DELETE FROM "{self._table}" WHERE id = ?', (key,)))

    def keys(self):
        rows = _wasmenv.query(f'SELECT id FROM "{self._table}" ORDER BY rowid', ())
        if type(rows) is str:
            raise ToolError(rows)
        return [r["id"] for r in rows] + self._new()

    def _new(self):
        # Records added in this call, stored when it returns.
        return [k for k, (_, text) in self._cache.items() if text is None]

    __iter__ = lambda self: iter(self.keys())  # noqa: E731

    def values(self):
        return [self[k] for k in self.keys()]

    def items(self):
        return [(k, self[k]) for k in self.keys()]

    def __len__(self):
        rows = _wasmenv.query(f'SELECT COUNT(*) AS n FROM "{self._table}"', ())
        if type(rows) is str:
            raise ToolError(rows)
        return rows[0]["n"] + len(self._new())

    def _flush(self):
        for key, (record, text) in self._cache.items():
            new = _json.dumps(record)
            if new == text:
                continue
            if text is None:
                _check(_wasmenv.execute(f'INSERT INTO "{self._table}" (id, data) VALUES (?, ?)', (key, new)))
            else:
                _check(_wasmenv.execute(f'UPDATE "{self._table}" SET data = ? WHERE id = ?', (new, key)))


def _check(r):
    if type(r) is str:
        raise ToolError(r)
    return r


class _Data:
    """wasmenv.data: collection name -> collection (a table of JSON records)."""

    __slots__ = ("_open",)

    def __init__(self):
        self._open = {}

    def __getitem__(self, name):
        c = self._open.get(name)
        if c is None:
            if not isinstance(name, str) or not name.isidentifier():
                raise KeyError(name)
            c = self._open[name] = _Collection(name)
        return c

    def _flush(self):
        try:
            for c in self._open.values():
                c._flush()
        finally:
            self._open.clear()

    def _discard(self):
        self._open.clear()


data = _Data()
