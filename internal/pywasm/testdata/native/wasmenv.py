"""A stand-in for the wasmenv sdk under native CPython, for the benchmark
(BenchmarkPythonToolCall): the same API over Python's sqlite3 on an
in-memory copy of the environment's database, so that the same tool
function runs natively against the same data."""

import datetime
import sqlite3

db = sqlite3.connect(":memory:", isolation_level=None)


class ToolError(Exception):
    pass


def _run(sql, params):
    try:
        return db.execute(sql, params)
    except sqlite3.Error as e:
        raise ToolError(str(e))


def query(sql, *params):
    cur = _run(sql, params)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def query_one(sql, *params):
    rows = query(sql, *params)
    return rows[0] if rows else None


def execute(sql, *params):
    return _run(sql, params).rowcount


def insert(sql, *params):
    return _run(sql, params).lastrowid


def now():
    return datetime.datetime(2024, 6, 3, 9, 0, tzinfo=datetime.timezone.utc)
