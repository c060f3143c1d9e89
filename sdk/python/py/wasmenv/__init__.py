"""wasmenv: what Python tool code imports.

It runs inside the sandboxed interpreter and reaches the outside world only
through the wasmenv host ABI that Go tool code uses too (sdk/wire): SQL with
parameters on the episode's copy-on-write database, the episode's clock and
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
import struct as _struct

import _wasmenv

__all__ = ["ToolError", "query", "query_one", "execute", "insert", "now", "random", "randint", "log"]

_OP_QUERY = 0
_OP_EXEC = 1
_TAG_NULL, _TAG_INT, _TAG_FLOAT, _TAG_TEXT, _TAG_BLOB = 0, 1, 2, 3, 4


class ToolError(Exception):
    """An error the agent sees as the tool's answer ("Error: <message>")."""


def query(sql: str, *params) -> list:
    """Runs a SELECT and returns its rows as dicts (column name -> value)."""
    cols, rows = _query(sql, params)
    return [dict(zip(cols, r)) for r in rows]


def query_one(sql: str, *params):
    """Runs a SELECT and returns its first row as a dict, or None."""
    cols, rows = _query(sql, params)
    return dict(zip(cols, rows[0])) if rows else None


def execute(sql: str, *params) -> int:
    """Runs an INSERT, UPDATE or DELETE and returns the rows it changed."""
    return _exec(sql, params)[0]


def insert(sql: str, *params) -> int:
    """Runs an INSERT and returns the new row's rowid."""
    return _exec(sql, params)[1]


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


# The wire format (sdk/wire/wire.go).

def _uvarint(b, v):
    while v >= 0x80:
        b.append((v & 0x7F) | 0x80)
        v >>= 7
    b.append(v)


def _request(op, sql, params):
    b = bytearray([op])
    s = sql.encode()
    _uvarint(b, len(s))
    b += s
    _uvarint(b, len(params))
    for p in params:
        if p is None:
            b.append(_TAG_NULL)
        elif isinstance(p, bool) or isinstance(p, int):
            v = int(p)
            if not -(1 << 63) <= v < (1 << 63):
                raise ToolError(f"SQL parameter {v} does not fit in 64 bits")
            b.append(_TAG_INT)
            _uvarint(b, ((v << 1) ^ (v >> 63)) & 0xFFFFFFFFFFFFFFFF)
        elif isinstance(p, float):
            b.append(_TAG_FLOAT)
            b += _pack_double(p)
        elif isinstance(p, str):
            e = p.encode()
            b.append(_TAG_TEXT)
            _uvarint(b, len(e))
            b += e
        elif isinstance(p, (bytes, bytearray)):
            b.append(_TAG_BLOB)
            _uvarint(b, len(p))
            b += p
        else:
            raise ToolError(f"unsupported SQL parameter type {type(p).__name__}")
    return bytes(b)


def _pack_double(f):
    return _struct.pack("<d", f)


class _Reader:
    __slots__ = ("b", "i")

    def __init__(self, b):
        self.b, self.i = b, 0

    def uvarint(self):
        v = shift = 0
        while True:
            c = self.b[self.i]
            self.i += 1
            v |= (c & 0x7F) << shift
            if c < 0x80:
                return v
            shift += 7

    def varint(self):
        u = self.uvarint()
        return (u >> 1) ^ -(u & 1)

    def text(self):
        n = self.uvarint()
        s = self.b[self.i:self.i + n]
        self.i += n
        return s.decode()

    def value(self):
        tag = self.b[self.i]
        self.i += 1
        if tag == _TAG_NULL:
            return None
        if tag == _TAG_INT:
            return self.varint()
        if tag == _TAG_FLOAT:
            v = _struct.unpack_from("<d", self.b, self.i)[0]
            self.i += 8
            return v
        if tag == _TAG_TEXT:
            return self.text()
        n = self.uvarint()
        v = bytes(self.b[self.i:self.i + n])
        self.i += n
        return v


def _send(op, sql, params):
    r = _Reader(_wasmenv.sql(_request(op, sql, params)))
    status = r.b[0]
    r.i = 1
    if status != 0:
        raise ToolError(r.text())
    return r


def _query(sql, params):
    r = _send(_OP_QUERY, sql, params)
    cols = [r.text() for _ in range(r.uvarint())]
    rows = []
    for _ in range(r.uvarint()):
        rows.append(tuple(r.value() for _ in cols))
    return cols, rows


def _exec(sql, params):
    r = _send(_OP_EXEC, sql, params)
    return r.varint(), r.varint()
