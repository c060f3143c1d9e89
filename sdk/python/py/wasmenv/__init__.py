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
from operator import itemgetter as _itemgetter

import _wasmenv
from _wasmenv import changed as _changed, copy as _copy, same as _same

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
#
# Speed (issue 39): json.loads and json.dumps of a record are the bulk of a
# point read in the interpreter (~70 us each for a τ-bench order), where
# native τ-bench only encodes a dict it holds. So a stored text is parsed
# once per interpreter, and its record kept with a saved copy of its
# containers (_wasmenv.copy: dicts and lists copied, the immutable leaves
# shared) and its json.dumps text, keyed by the stored text itself: a pure
# function of the text, never of an episode. A read hands the tool that
# kept record itself (no copy per read), unless this call already holds it
# under another id (two ids with the same text get two records). When the
# call ends, however it ends, every record handed out is compared with its
# saved copy in C (_wasmenv.same: the same types exactly, values and order,
# so the same json.dumps text; no allocation, where a marshal.dumps per
# record cost 6-18 us); one the call changed is written back if it was a
# tool's success, and the kept record is replaced by a fresh copy of the
# saved one, so nothing of one call reaches another through it. A plain json.dumps of a record the call holds unchanged is
# its kept text (as the Go ports answer with a record's stored text).
# Anything else, a changed record or json.dumps with options, takes the
# plain path. A record stored in another layout than json.dumps's is
# written back only when its json.dumps text changes, never by a read.

_json_dumps = _json.dumps  # the original, for every record not recognized
_MEMO_BYTES = 4 << 20  # stored texts (counted twice: their records and copies) kept, at most


def _new_memo():
    memo = {}  # stored text -> [its record, its saved copy or None, json.dumps text]
    held = [0]

    def parse(text):
        """The kept entry of a stored text: [record, saved copy (None: not
        one _wasmenv.copy can keep, nested too deep: the record is then
        parsed afresh each time), json.dumps text (the stored text, unless
        it was stored in another layout)]."""
        hit = memo.get(text)
        if hit is not None:
            if hit[1] is None:
                return [_json.loads(text), None, hit[2]]
            if hit[0] is None:  # a call changed the kept record: a fresh one
                hit[0] = _copy(hit[1])
            return hit
        record = _json.loads(text)
        canon = _json_dumps(record)
        try:
            saved = _copy(record)
        except ValueError:
            saved = None
        if held[0] > _MEMO_BYTES:
            memo.clear()
            held[0] = 0
        entry = memo[text] = [record, saved, canon]
        held[0] += 2 * len(text) + len(canon)
        return entry

    def forget():
        memo.clear()
        held[0] = 0

    return parse, forget


_parse, _forget = _new_memo()  # the memo lives in their closure, out of tool code's reach
# id(record) -> [record, its json.dumps text, saved copy, kept entry,
# state, last] for every kept record handed out in this call. state: None
# until the call ends, then True (unchanged) or False (changed: the memo's
# record is dropped, made afresh from the saved copy at its next read).
# last: a copy of the record as it was at its latest plain json.dumps while
# changed, and that text, so that writing it back does not encode it again.
_handed = {}


def _settle(h):
    """Sets whether handed record h is unchanged; a changed one leaves the memo."""
    h[4] = _same(h[0], h[2])
    if not h[4] and h[3][0] is h[0]:
        h[3][0] = None


def _settle_all():
    """At the end of every call: each kept record handed out is checked and,
    if changed, dropped from the memo; each base record a scan handed out
    likewise (see _Base). Anything going wrong here (out of memory) empties
    the memo and the bases instead: they must never keep a record a call
    changed."""
    try:
        for h in _handed.values():
            if h[4] is None:
                _settle(h)
        if _scans:
            for _c, _key, _record, base, pos in _scan_changes():
                base.stale.append(pos)
    except BaseException:
        _forget()
        _bases.clear()
    finally:
        _handed.clear()
        _scans.clear()
        _scan_changed.clear()


def _dumps(obj, *args, **kwargs):
    if _handed and not args and not kwargs:
        h = _handed.get(id(obj))
        if h is not None and h[0] is obj:
            if _same(obj, h[2]):
                return h[1]
            last = h[5]
            if last is not None and _same(obj, last[0]):
                return last[1]
            text = _json_dumps(obj)
            try:
                h[5] = (_copy(obj), text)
            except ValueError:  # not JSON's types any more: encoded each time
                h[5] = None
            return text
    return _json_dumps(obj, *args, **kwargs)


_dumps.__doc__, _dumps.__name__, _dumps.__qualname__ = _json_dumps.__doc__, "dumps", "dumps"
_json.dumps = _dumps


class _Collection:
    """data["orders"]: a mapping of record id -> record (a dict)."""

    __slots__ = ("_table", "_cache", "_select")

    def __init__(self, table):
        self._table = table
        self._cache = {}  # id -> [record, its json.dumps text when read (None: new), handed entry or None]
        self._select = f'SELECT data FROM "{table}" WHERE id = ?'

    def _take(self, key, text):
        entry = _parse(text)
        record, saved, canon = entry
        h = None
        if saved is not None:
            if id(record) not in _handed:
                h = _handed[id(record)] = [record, canon, saved, entry, None, None]
            else:  # held under another id in this call: a record of its own
                record = _copy(saved)
        self._cache[key] = [record, canon, h]
        return record

    def _load(self, key):
        hit = self._cache.get(key)
        if hit is not None:
            return hit[0]
        if _scans:
            record = _scanned(self, key)
            if record is not None:
                return record
        rows = _wasmenv.query(self._select, (key,))
        if type(rows) is str:
            raise ToolError(rows)
        if not rows:
            return None
        return self._take(key, rows[0]["data"])

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
        if hit is None:
            self._load(key)
            hit = self._cache.get(key)
        if hit is not None:
            hit[0] = record
        else:
            self._cache[key] = [record, None, None]

    def __delitem__(self, key):
        if self._load(key) is None:
            raise KeyError(key)
        del self._cache[key]
        _check(_wasmenv.execute(f'DELETE FROM "{self._table}" WHERE id = ?', (key,)))

    def keys(self):
        view = _view(self)
        if view is not None:
            return list(map(_first, view[1]))
        rows = _wasmenv.query(f'SELECT id FROM "{self._table}" ORDER BY rowid', ())
        if type(rows) is str:
            raise ToolError(rows)
        return [r["id"] for r in rows] + self._new()

    def _new(self):
        # Records added in this call, stored when it returns.
        return [k for k, (_, text, _) in self._cache.items() if text is None]

    __iter__ = lambda self: iter(self.keys())  # noqa: E731

    def items(self):
        # From the collection's base when it has one (_view: no query for
        # the rows, no parsing), else one query for the whole collection;
        # either way each record is handed out (and checked when the call
        # ends) only when the iteration reaches it, so a search that stops
        # at its match pays for the records before it, not for all of
        # them. A record this call already holds is that same object.
        view = _view(self)
        if view is not None:
            return _ViewItems(view, False)
        rows = _wasmenv.query(f'SELECT id, data FROM "{self._table}" ORDER BY rowid', ())
        if type(rows) is str:
            raise ToolError(rows)
        return _Items(self, rows)

    def values(self):
        view = _view(self)
        if view is not None:
            return _ViewItems(view, True)
        return [record for _, record in self.items()]

    def __len__(self):
        view = _view(self)
        if view is not None:
            return len(view[1])
        rows = _wasmenv.query(f'SELECT COUNT(*) AS n FROM "{self._table}"', ())
        if type(rows) is str:
            raise ToolError(rows)
        return rows[0]["n"] + len(self._new())

    def _flush(self):
        if _scans:  # base records a scan handed out and the call changed
            cache = self._cache
            for c, key, record, base, pos in _scan_changes():
                if c is self and key not in cache:
                    cache[key] = [record, _base_text(base, pos), None]
        for key, (record, text, h) in self._cache.items():
            new = None
            if h is not None and h[0] is record:
                _settle(h)
                if h[4]:
                    continue
                last = h[5]
                if last is not None and _same(record, last[0]):
                    new = last[1]  # the tool's own json.dumps of it as it is now
            if new is None:
                new = _json_dumps(record)
            if new == text:
                continue
            if text is None:
                _check(_wasmenv.execute(f'INSERT INTO "{self._table}" (id, data) VALUES (?, ?)', (key, new)))
            else:
                _check(_wasmenv.execute(f'UPDATE "{self._table}" SET data = ? WHERE id = ?', (new, key)))


class _Items:
    """A collection's items as a dict's items view reads: iterable (again),
    with a length; the rows were read at once, the records are taken as the
    iteration reaches them, then the records this call added."""

    __slots__ = ("_collection", "_rows")

    def __init__(self, collection, rows):
        self._collection = collection
        self._rows = rows

    def __len__(self):
        return len(self._rows) + len(self._collection._new())

    def __iter__(self):
        c = self._collection
        cache = c._cache
        for r in self._rows:
            key = r["id"]
            hit = cache.get(key)
            yield key, (hit[0] if hit is not None else c._take(key, r["data"]))
        for key in c._new():
            yield key, cache[key][0]

# Collections' bases (issue 39: a scan read and parsed every record of a
# collection through the host, 1.7 ms for τ-bench's 500 users where native
# τ-bench iterates dicts it holds). A collection's rows in the episode's
# initial state are the same in every episode over that state, so the sdk
# reads them once per interpreter from the initial state itself (init."t",
# read-only), parsed, and keeps them by wasmenv_init(), the host's name for
# that state (never a name another state gets). A scan then reads from the
# base, except at the rowids the episode wrote since its reset
# (wasmenv_written(t), the host's change tracking), which it reads from the
# episode's table, and except the records this call already holds; NULL
# from either function (tracking off, too many rows written) means no base:
# the scan reads the whole table as before.
#
# A base record is handed to the tool itself, without a copy, so nothing may
# change it for good: the scan's iterator is a C list iterator the sdk keeps
# (the tool gets a filter or map over it, which a copy still shares), so
# when the call ends the sdk knows how far each scan went and compares every
# base record up to there with its saved copy (_wasmenv.changed: exact
# types, values and order, in C, no allocation; a marshal.dumps per record
# was 6 us for a τ-bench user, most of a scan). One that differs is written
# back if the call succeeded and, however the call ended, replaced in the
# base by a fresh copy of the saved one before the next scan; so a change
# never reaches another call or episode through it.
_BASE_TEXT = 1 << 20  # a collection's stored text, at most, to keep a base of it
_BASES_TEXT = 2 << 20  # all bases together, at most (the oldest go first)
_first, _second = _itemgetter(0), _itemgetter(1)
_bases = {}  # (table, wasmenv_init()) -> _Base
# This call's views: [collection, items, recs, saved, base, iterators,
# positions handed by a point read, aligned with the base's positions]
_scans = []
_scan_changed = []  # this call's _scan_changes() once made


class _Base:
    __slots__ = ("items", "recs", "saved", "index", "rowids", "pos", "canon", "stale", "size")

    def __init__(self):
        self.items = None  # [(id, record)] in rowid order; None: no base (too big, not a rowid table)
        self.size = 0


def _base_for(table, init):
    key = (table, init)
    base = _bases.get(key)
    if base is not None:
        return base
    base = _bases[key] = _Base()
    rows = _wasmenv.query(f'SELECT rowid AS r, id, data FROM init."{table}" ORDER BY rowid', ())
    if type(rows) is str:
        return base
    size = sum(map(len, map(_itemgetter("data"), rows)))
    if size > _BASE_TEXT:
        return base
    total = size + sum(b.size for b in _bases.values())
    for k in list(_bases):
        if total <= _BASES_TEXT or k == key:
            break
        total -= _bases.pop(k).size
    loads = _json.loads
    items, recs, saved, index, rowids = [], [], [], {}, []
    try:
        for i, row in enumerate(rows):
            record = loads(row["data"])
            recs.append(record)
            saved.append(_copy(record))
            items.append((row["id"], record))
            index[row["id"]] = i
            rowids.append(row["r"])
    except ValueError:  # a record nested too deep to keep: no base
        return base
    base.recs, base.saved, base.index, base.rowids = recs, saved, index, rowids
    base.pos = {r: i for i, r in enumerate(rowids)}
    base.canon, base.stale, base.size = {}, [], size
    base.items = items
    return base


def _base_text(base, pos):
    """The json.dumps text of the base's record at pos as it was read."""
    text = base.canon.get(pos)
    if text is None:
        text = base.canon[pos] = _json_dumps(base.saved[pos])
    return text


def _view(coll):
    """This call's scan of coll from its base, registered in _scans, or None
    when it has none (the caller reads the table whole)."""
    table = coll._table
    r = _wasmenv.query("SELECT wasmenv_init() AS i, wasmenv_written(?) AS w", (table,))
    if type(r) is str or r[0]["w"] is None:
        return None
    written = r[0]["w"]
    base = _base_for(table, r[0]["i"])
    if base.items is None:
        return None
    if base.stale:  # records an earlier call changed: fresh copies of the saved ones
        for pos in base.stale:
            record = _copy(base.saved[pos])
            base.items[pos] = (base.items[pos][0], record)
            base.recs[pos] = record
        base.stale.clear()
    items, recs, saved = base.items, base.recs, base.saved
    cache = coll._cache
    aligned = True
    if written != "[]" or cache:
        items, recs, saved = items[:], recs[:], saved[:]
        extra, gone = [], False
        if written != "[]":
            rows = _wasmenv.query(f'SELECT rowid AS r, id, data FROM "{table}" '
                                  "WHERE rowid IN (SELECT value FROM json_each(?)) ORDER BY rowid", (written,))
            if type(rows) is str:
                raise ToolError(rows)
            found = set()
            for row in rows:
                rowid, key = row["r"], row["id"]
                found.add(rowid)
                hit = cache.get(key)
                record = hit[0] if hit is not None else coll._take(key, row["data"])
                pos = base.pos.get(rowid)
                if pos is None:
                    extra.append((rowid, (key, record)))
                else:
                    items[pos], recs[pos], saved[pos] = (key, record), None, None
            for rowid in _json.loads(written):
                pos = base.pos.get(rowid)
                if rowid not in found and pos is not None:  # deleted
                    items[pos], recs[pos], saved[pos], gone = None, None, None, True
        new = []
        for key, (record, text, _h) in cache.items():
            pos = base.index.get(key)
            if text is None:
                new.append((key, record))
            elif pos is not None and recs[pos] is not None:  # a base row this call holds
                items[pos], recs[pos], saved[pos] = (key, record), None, None
        if extra or gone:  # rows the episode inserted or deleted: rowid order again
            rowids = base.rowids
            rows = [(rowids[i], items[i], recs[i], saved[i]) for i in range(len(items)) if items[i] is not None]
            rows += [(rowid, item, None, None) for rowid, item in extra]
            rows.sort(key=_first)
            items, recs, saved = [r[1] for r in rows], [r[2] for r in rows], [r[3] for r in rows]
            aligned = False
        if new:
            items += new
            recs += [None] * len(new)
            saved += [None] * len(new)
    scan = [coll, items, recs, saved, base, [], [], aligned]
    _scans.append(scan)
    return scan


class _ViewItems:
    """A scan's items (or values) as a dict's view reads: iterable (again),
    with a length; each iteration is a C iterator the sdk keeps (_view)."""

    __slots__ = ("_scan", "_values")

    def __init__(self, scan, values):
        self._scan = scan
        self._values = values

    def __len__(self):
        return len(self._scan[1])

    def __iter__(self):
        scan = self._scan
        it = iter(scan[1])
        scan[5].append(it)
        return map(_second, it) if self._values else filter(None, it)

    def __reversed__(self):
        return reversed(list(self))  # the whole scan reached: every record checked


def _scanned(coll, key):
    """The base record of key that a scan of coll in this call holds, now
    also in coll's cache (so that every read of key in the call is that one
    object); None when there is none."""
    for scan in reversed(_scans):
        if scan[0] is not coll:
            continue
        items, recs, base = scan[1], scan[2], scan[4]
        if scan[7]:
            pos = base.index.get(key)
        else:
            pos = next((i for i, item in enumerate(items) if item[0] == key), None)
        if pos is None or recs[pos] is None or items[pos][0] != key:
            return None
        scan[6].append(pos)
        record = recs[pos]
        coll._cache[key] = [record, _base_text(base, base.index[key]), None]
        return record
    return None


def _scan_changes():
    """(collection, id, record, base, base position) of each base record this
    call's scans handed out that is not what the base read (see above)."""
    if _scan_changed:
        return _scan_changed[0]
    changed = []
    for coll, items, recs, saved, base, its, extra, _aligned in _scans:
        n = 0
        for it in its:
            reached = len(items) - it.__length_hint__()
            if reached > n:
                n = reached
        todo = _changed(recs, saved, n) if n else []
        for i in extra:  # handed by a point read, wherever the scans stopped
            if i >= n and recs[i] is not None and not _same(recs[i], saved[i]):
                todo.append(i)
        for i in todo:
            key = items[i][0]
            changed.append((coll, key, recs[i], base, base.index[key]))
    _scan_changed.append(changed)
    return changed


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


data = _Data()
