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

import _wasmenv

__all__ = ["ToolError", "query", "query_one", "execute", "insert", "now", "random", "randint", "log"]


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
