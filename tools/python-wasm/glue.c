// glue.c: the C side of wasmenv's Python tool modules.
//
// It turns CPython into a WASI reactor with the same ABI as a Go tool
// module (sdk/wire): the host writes a call's JSON arguments into the
// buffer wasmenv_buffer returns, calls wasmenv_call(tool, n) and reads the
// output (a status byte, then the result or error text). The interpreter
// starts once per instance in a constructor, which runs inside
// _initialize under the runtime's time limit, and then imports the
// bootstrap module /wasmenv/_wasmenv_boot.py that the runtime mounts: all
// policy (dispatch, schemas, checks) is Python shipped with wasmenv, so
// changing it needs no interpreter rebuild.
//
// The built-in module _wasmenv exposes the host functions: sql(request) ->
// response bytes, query(sql, params) and execute(sql, params) (the wire
// format in C), clock() -> unix ns, random() -> 64 bits, log(text); and
// the state guard's quick check, guard(dicts, functions) then unchanged();
// records' copies and their exact comparison, copy(record), same(record,
// saved), changed(records, saved, n); and the tools whose common calls
// the glue decodes and checks itself, tools(tools, run, scan_once).
#include <Python.h>
#include "internal/pycore_dict.h" // a dict's entries, for rec_same's quick path
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IMPORT(name) __attribute__((import_module("wasmenv"), import_name(name)))
IMPORT("sql") int32_t wasmenv_host_sql(const void *req, uint32_t n);
IMPORT("take") void wasmenv_host_take(void *dst);
IMPORT("clock") int64_t wasmenv_host_clock(void);
IMPORT("random") int64_t wasmenv_host_random(void);
IMPORT("log") void wasmenv_host_log(const void *msg, uint32_t n);

static PyObject *host_sql(PyObject *self, PyObject *arg) {
	Py_buffer req;
	if (PyObject_GetBuffer(arg, &req, PyBUF_SIMPLE) < 0)
		return NULL;
	int32_t n = wasmenv_host_sql(req.buf, (uint32_t)req.len);
	PyBuffer_Release(&req);
	if (n < 0) {
		PyErr_SetString(PyExc_RuntimeError, "wasmenv: the host could not read the SQL request");
		return NULL;
	}
	PyObject *out = PyBytes_FromStringAndSize(NULL, n);
	if (out != NULL && n > 0)
		wasmenv_host_take(PyBytes_AS_STRING(out));
	return out;
}


// The SQL wire format (sdk/wire/wire.go), encoded and decoded here rather
// than in Python: a point read's request and rows cost microseconds in C
// and ~90 us as Python running in the interpreter.

typedef struct {
	uint8_t *p;
	size_t n, cap;
} wbuf;

static int wb_grow(wbuf *b, size_t more) {
	if (b->n + more <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->n + more)
		cap *= 2;
	uint8_t *p = realloc(b->p, cap);
	if (p == NULL) {
		PyErr_NoMemory();
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

static int wb_put(wbuf *b, const void *src, size_t n) {
	if (wb_grow(b, n) < 0)
		return -1;
	memcpy(b->p + b->n, src, n);
	b->n += n;
	return 0;
}

static int wb_uvarint(wbuf *b, uint64_t v) {
	uint8_t tmp[10];
	size_t i = 0;
	while (v >= 0x80) {
		tmp[i++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	tmp[i++] = (uint8_t)v;
	return wb_put(b, tmp, i);
}

static int wb_bytes(wbuf *b, uint8_t tag, const char *s, size_t n) {
	if (tag && wb_put(b, &tag, 1) < 0)
		return -1;
	if (wb_uvarint(b, n) < 0)
		return -1;
	return wb_put(b, s, n);
}

static int encode_param(wbuf *b, PyObject *v) {
	uint8_t tag;
	if (v == Py_None) {
		tag = 0;
		return wb_put(b, &tag, 1);
	}
	if (PyLong_Check(v)) { // bool too
		int overflow;
		long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
		if (overflow) {
			PyErr_SetString(PyExc_OverflowError, "SQL parameter does not fit in 64 bits");
			return -1;
		}
		tag = 1;
		if (wb_put(b, &tag, 1) < 0)
			return -1;
		return wb_uvarint(b, ((uint64_t)x << 1) ^ (uint64_t)(x >> 63));
	}
	if (PyFloat_Check(v)) {
		double d = PyFloat_AS_DOUBLE(v);
		tag = 2;
		if (wb_put(b, &tag, 1) < 0)
			return -1;
		return wb_put(b, &d, 8); // wasm32 is little-endian
	}
	if (PyUnicode_Check(v)) {
		Py_ssize_t n;
		const char *s = PyUnicode_AsUTF8AndSize(v, &n);
		return s == NULL ? -1 : wb_bytes(b, 3, s, (size_t)n);
	}
	if (PyBytes_Check(v))
		return wb_bytes(b, 4, PyBytes_AS_STRING(v), (size_t)PyBytes_GET_SIZE(v));
	if (PyByteArray_Check(v))
		return wb_bytes(b, 4, PyByteArray_AS_STRING(v), (size_t)PyByteArray_GET_SIZE(v));
	PyErr_Format(PyExc_TypeError, "unsupported SQL parameter type %s", Py_TYPE(v)->tp_name);
	return -1;
}

typedef struct {
	const uint8_t *p, *end;
} rd;

static int rd_uvarint(rd *r, uint64_t *v) {
	uint64_t x = 0;
	for (int shift = 0; shift < 64 && r->p < r->end; shift += 7) {
		uint8_t c = *r->p++;
		x |= (uint64_t)(c & 0x7F) << shift;
		if (c < 0x80) {
			*v = x;
			return 0;
		}
	}
	PyErr_SetString(PyExc_RuntimeError, "wasmenv: truncated response from the host");
	return -1;
}

static PyObject *rd_text(rd *r) {
	uint64_t n;
	if (rd_uvarint(r, &n) < 0)
		return NULL;
	if (n > (uint64_t)(r->end - r->p)) {
		PyErr_SetString(PyExc_RuntimeError, "wasmenv: truncated response from the host");
		return NULL;
	}
	PyObject *s = PyUnicode_DecodeUTF8((const char *)r->p, (Py_ssize_t)n, "replace");
	r->p += n;
	return s;
}

static PyObject *rd_value(rd *r) {
	if (r->p >= r->end)
		return rd_text(r); // raises the truncation error
	uint8_t tag = *r->p++;
	uint64_t u;
	switch (tag) {
	case 0:
		Py_RETURN_NONE;
	case 1:
		if (rd_uvarint(r, &u) < 0)
			return NULL;
		return PyLong_FromLongLong((long long)((u >> 1) ^ (~(u & 1) + 1)));
	case 2: {
		double d;
		if (r->end - r->p < 8)
			return rd_text(r);
		memcpy(&d, r->p, 8);
		r->p += 8;
		return PyFloat_FromDouble(d);
	}
	case 3:
		return rd_text(r);
	default:
		if (rd_uvarint(r, &u) < 0)
			return NULL;
		if (u > (uint64_t)(r->end - r->p))
			return rd_text(r);
		PyObject *b = PyBytes_FromStringAndSize((const char *)r->p, (Py_ssize_t)u);
		r->p += u;
		return b;
	}
}

// host_run sends op, sql and params and returns the response, or NULL.
static int host_run(int op, PyObject *args, wbuf *resp) {
	PyObject *sql, *params;
	if (!PyArg_ParseTuple(args, "UO!", &sql, &PyTuple_Type, &params))
		return -1;
	wbuf b = {0};
	uint8_t opb = (uint8_t)op;
	Py_ssize_t n;
	const char *s = PyUnicode_AsUTF8AndSize(sql, &n);
	int err = s == NULL || wb_put(&b, &opb, 1) < 0 || wb_bytes(&b, 0, s, (size_t)n) < 0 ||
		  wb_uvarint(&b, (uint64_t)PyTuple_GET_SIZE(params)) < 0;
	for (Py_ssize_t i = 0; !err && i < PyTuple_GET_SIZE(params); i++)
		err = encode_param(&b, PyTuple_GET_ITEM(params, i)) < 0;
	if (err) {
		free(b.p);
		return -1;
	}
	int32_t size = wasmenv_host_sql(b.p, (uint32_t)b.n);
	free(b.p);
	if (size < 0) {
		PyErr_SetString(PyExc_RuntimeError, "wasmenv: the host could not read the SQL request");
		return -1;
	}
	*resp = (wbuf){0};
	if (wb_grow(resp, (size_t)size + 1) < 0)
		return -1;
	if (size > 0)
		wasmenv_host_take(resp->p);
	resp->n = (size_t)size;
	return 0;
}

// query(sql, params) -> list of dicts, or str: the SQL error.
static PyObject *host_query(PyObject *self, PyObject *args) {
	wbuf resp;
	if (host_run(0, args, &resp) < 0)
		return NULL;
	rd r = {resp.p, resp.p + resp.n};
	PyObject *out = NULL, *cols = NULL;
	uint64_t ncols, nrows;
	if (r.p >= r.end) {
		PyErr_SetString(PyExc_RuntimeError, "wasmenv: empty response from the host");
		goto done;
	}
	if (*r.p++ != 0) {
		out = rd_text(&r);
		goto done;
	}
	if (rd_uvarint(&r, &ncols) < 0 || ncols > (uint64_t)(r.end - r.p))
		goto done;
	cols = PyTuple_New((Py_ssize_t)ncols);
	for (uint64_t i = 0; cols && i < ncols; i++) {
		PyObject *name = rd_text(&r);
		if (name == NULL)
			goto done;
		PyTuple_SET_ITEM(cols, (Py_ssize_t)i, name);
	}
	if (cols == NULL || rd_uvarint(&r, &nrows) < 0)
		goto done;
	out = PyList_New(0);
	for (uint64_t i = 0; out && i < nrows; i++) {
		PyObject *row = PyDict_New();
		if (row == NULL || PyList_Append(out, row) < 0) {
			Py_XDECREF(row);
			Py_CLEAR(out);
			break;
		}
		Py_DECREF(row);
		for (uint64_t j = 0; j < ncols; j++) {
			PyObject *v = rd_value(&r);
			if (v == NULL || PyDict_SetItem(row, PyTuple_GET_ITEM(cols, (Py_ssize_t)j), v) < 0) {
				Py_XDECREF(v);
				Py_CLEAR(out);
				goto done;
			}
			Py_DECREF(v);
		}
	}
done:
	Py_XDECREF(cols);
	free(resp.p);
	return out;
}

// execute(sql, params) -> (rows affected, last insert rowid), or str: the SQL error.
static PyObject *host_execute(PyObject *self, PyObject *args) {
	wbuf resp;
	if (host_run(1, args, &resp) < 0)
		return NULL;
	rd r = {resp.p, resp.p + resp.n};
	PyObject *out = NULL;
	uint64_t a, id;
	if (r.p >= r.end) {
		PyErr_SetString(PyExc_RuntimeError, "wasmenv: empty response from the host");
	} else if (*r.p++ != 0) {
		out = rd_text(&r);
	} else if (rd_uvarint(&r, &a) == 0 && rd_uvarint(&r, &id) == 0) {
		out = Py_BuildValue("(LL)", (long long)((a >> 1) ^ (~(a & 1) + 1)), (long long)((id >> 1) ^ (~(id & 1) + 1)));
	}
	free(resp.p);
	return out;
}

static PyObject *host_clock(PyObject *self, PyObject *unused) {
	return PyLong_FromLongLong(wasmenv_host_clock());
}

static PyObject *host_random(PyObject *self, PyObject *unused) {
	return PyLong_FromUnsignedLongLong((uint64_t)wasmenv_host_random());
}

static PyObject *host_log(PyObject *self, PyObject *arg) {
	Py_ssize_t n;
	const char *s = PyUnicode_AsUTF8AndSize(arg, &n);
	if (s == NULL)
		return NULL;
	wasmenv_host_log(s, (uint32_t)n);
	Py_RETURN_NONE;
}

// The state guard's quick check (_wasmenv_boot.py): after every call, are
// the guarded namespaces (modules' dicts) and functions' attribute dicts
// the very objects they were after import, holding the very keys and
// values in the same order? Identity comparisons only, no allocation: a
// pointer compare per guarded name, where the same check in Python built
// and compared tuples (20 of a no-op call's 33 us under wazero). Anything
// it cannot vouch for answers False, and the bootstrap's full check then
// finds what changed, if anything, and puts it back.
static PyObject *guard_dicts; // tuple of (dict, keys tuple, values tuple)
static PyObject *guard_funcs; // tuple of (function, its __dict__, keys tuple, values tuple)

static int guard_entries_ok(PyObject *entries, Py_ssize_t width, int funcs) {
	for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(entries); i++) {
		PyObject *e = PyTuple_GET_ITEM(entries, i);
		if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) != width)
			return 0;
		PyObject *d = PyTuple_GET_ITEM(e, width - 3), *k = PyTuple_GET_ITEM(e, width - 2), *v = PyTuple_GET_ITEM(e, width - 1);
		if (!PyDict_Check(d) || !PyTuple_Check(k) || !PyTuple_Check(v) || PyTuple_GET_SIZE(k) != PyTuple_GET_SIZE(v))
			return 0;
		if (funcs && !PyFunction_Check(PyTuple_GET_ITEM(e, 0)))
			return 0;
	}
	return 1;
}

static PyObject *host_guard(PyObject *self, PyObject *args) {
	PyObject *dicts, *funcs;
	if (!PyArg_ParseTuple(args, "O!O!", &PyTuple_Type, &dicts, &PyTuple_Type, &funcs))
		return NULL;
	if (!guard_entries_ok(dicts, 3, 0) || !guard_entries_ok(funcs, 4, 1)) {
		PyErr_SetString(PyExc_TypeError, "guard: expected (dict, keys, values) and (function, dict, keys, values) tuples");
		return NULL;
	}
	Py_XSETREF(guard_dicts, Py_NewRef(dicts));
	Py_XSETREF(guard_funcs, Py_NewRef(funcs));
	Py_RETURN_NONE;
}

// same_dict: d holds exactly keys[i] -> values[i], in that order, by identity.
static int same_dict(PyObject *d, PyObject *keys, PyObject *values) {
	Py_ssize_t n = PyTuple_GET_SIZE(keys), pos = 0, i = 0;
	PyObject *k, *v;
	if (PyDict_GET_SIZE(d) != n)
		return 0;
	while (PyDict_Next(d, &pos, &k, &v)) {
		if (i >= n || k != PyTuple_GET_ITEM(keys, i) || v != PyTuple_GET_ITEM(values, i))
			return 0;
		i++;
	}
	return i == n;
}

static PyObject *host_unchanged(PyObject *self, PyObject *unused) {
	if (guard_dicts == NULL || guard_funcs == NULL)
		Py_RETURN_FALSE;
	for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(guard_dicts); i++) {
		PyObject *e = PyTuple_GET_ITEM(guard_dicts, i);
		if (!same_dict(PyTuple_GET_ITEM(e, 0), PyTuple_GET_ITEM(e, 1), PyTuple_GET_ITEM(e, 2)))
			Py_RETURN_FALSE;
	}
	for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(guard_funcs); i++) {
		PyObject *e = PyTuple_GET_ITEM(guard_funcs, i);
		PyObject *attrs = PyTuple_GET_ITEM(e, 1);
		if (((PyFunctionObject *)PyTuple_GET_ITEM(e, 0))->func_dict != attrs ||
			!same_dict(attrs, PyTuple_GET_ITEM(e, 2), PyTuple_GET_ITEM(e, 3)))
			Py_RETURN_FALSE;
	}
	Py_RETURN_TRUE;
}

// JSON records, copied and compared in C (issue 39's scans and point
// reads). The sdk hands a tool the very record it keeps across calls and
// episodes (a base record of a scan, a kept record of a point read), so
// when the call ends it must know whether the tool changed it. It keeps a
// copy of each record's containers (dicts and lists; the str, int, float,
// bool and None leaves are shared, being immutable) and compares the
// record with it: the same types exactly (1, 1.0 and True differ), the
// same values, dict keys in the same order, so the same json.dumps text.
// No allocation and no Python code runs: a pointer compare per shared leaf
// where a marshal.dumps per record cost 6 us for a 450-byte user and
// 18 us for a 2 KB product under wazero.
#define REC_MAX_DEPTH 200

static PyObject *rec_copy(PyObject *v, int depth) {
	if (depth > REC_MAX_DEPTH) {
		PyErr_SetString(PyExc_ValueError, "record nested too deeply to keep");
		return NULL;
	}
	if (PyDict_CheckExact(v)) {
		PyObject *out = PyDict_New(), *k, *x;
		Py_ssize_t pos = 0;
		while (out != NULL && PyDict_Next(v, &pos, &k, &x)) {
			if (!PyUnicode_CheckExact(k)) {
				PyErr_SetString(PyExc_ValueError, "record key that is not a str");
				Py_CLEAR(out);
				break;
			}
			PyObject *c = rec_copy(x, depth + 1);
			if (c == NULL || PyDict_SetItem(out, k, c) < 0)
				Py_CLEAR(out);
			Py_XDECREF(c);
		}
		return out;
	}
	if (PyList_CheckExact(v)) {
		Py_ssize_t n = PyList_GET_SIZE(v);
		PyObject *out = PyList_New(n);
		for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
			PyObject *c = rec_copy(PyList_GET_ITEM(v, i), depth + 1);
			if (c == NULL)
				Py_CLEAR(out);
			else
				PyList_SET_ITEM(out, i, c);
		}
		return out;
	}
	if (PyUnicode_CheckExact(v) || PyLong_CheckExact(v) || PyFloat_CheckExact(v) || PyBool_Check(v) || v == Py_None)
		return Py_NewRef(v);
	PyErr_Format(PyExc_ValueError, "record value of type %s", Py_TYPE(v)->tp_name);
	return NULL;
}

static int rec_same(PyObject *a, PyObject *b, int depth);

static inline int is_container(PyObject *v) { return PyDict_CheckExact(v) || PyList_CheckExact(v); }

// dict_same_entries is rec_same's quick path for two dicts: a copy made by
// rec_copy has its record's str keys, the same objects, in the same
// entry slots, so slot by slot the keys are compared by identity and a
// shared leaf value by identity too, without a call. 1: the same; 0: not;
// -1: the layouts differ (a key deleted and added again, a split table),
// ask the general path.
static int dict_same_entries(PyDictObject *a, PyDictObject *b, int depth) {
	if (a->ma_values != NULL || b->ma_values != NULL)
		return -1;
	PyDictKeysObject *ka = a->ma_keys, *kb = b->ma_keys;
	Py_ssize_t n = kb->dk_nentries;
	if (ka->dk_kind != DICT_KEYS_UNICODE || kb->dk_kind != DICT_KEYS_UNICODE || ka->dk_nentries != n)
		return -1;
	PyDictUnicodeEntry *ea = DK_UNICODE_ENTRIES(ka), *eb = DK_UNICODE_ENTRIES(kb);
	for (Py_ssize_t i = 0; i < n; i++) {
		if (ea[i].me_key != eb[i].me_key)
			return -1;
		PyObject *va = ea[i].me_value, *vb = ea[i].me_key == NULL ? NULL : eb[i].me_value;
		if (vb == NULL) // a deleted slot in both
			continue;
		if (va == NULL)
			return -1;
		if (va == vb ? is_container(vb) : !rec_same(va, vb, depth + 1))
			return 0;
	}
	return 1;
}

// rec_same: whether record a is exactly saved copy b (made by rec_copy).
static int rec_same(PyObject *a, PyObject *b, int depth) {
	PyTypeObject *t = Py_TYPE(b);
	if (Py_TYPE(a) != t || depth > REC_MAX_DEPTH)
		return 0;
	if (t == &PyDict_Type) {
		// a container of the saved copy is never handed out: a is b would
		// mean the tool holds the copy itself, so it counts as a change.
		if (a == b || PyDict_GET_SIZE(a) != PyDict_GET_SIZE(b))
			return 0;
		int quick = dict_same_entries((PyDictObject *)a, (PyDictObject *)b, depth);
		if (quick >= 0)
			return quick;
		Py_ssize_t pa = 0, pb = 0;
		PyObject *ka, *va, *kb, *vb;
		while (PyDict_Next(b, &pb, &kb, &vb)) {
			if (!PyDict_Next(a, &pa, &ka, &va) || !rec_same(ka, kb, depth + 1) || !rec_same(va, vb, depth + 1))
				return 0;
		}
		return 1;
	}
	if (t == &PyList_Type) {
		Py_ssize_t n = PyList_GET_SIZE(b);
		if (a == b || PyList_GET_SIZE(a) != n)
			return 0;
		for (Py_ssize_t i = 0; i < n; i++) {
			PyObject *va = PyList_GET_ITEM(a, i), *vb = PyList_GET_ITEM(b, i);
			if (va == vb ? is_container(vb) : !rec_same(va, vb, depth + 1))
				return 0;
		}
		return 1;
	}
	if (a == b)
		return 1; // a shared leaf
	if (t == &PyUnicode_Type) {
		Py_ssize_t n = PyUnicode_GET_LENGTH(b);
		int kind = PyUnicode_KIND(b); // canonical: equal strings have equal kinds
		return PyUnicode_GET_LENGTH(a) == n && PyUnicode_KIND(a) == kind &&
		       memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b), (size_t)n * (size_t)kind) == 0;
	}
	if (t == &PyLong_Type)
		return PyObject_RichCompareBool(a, b, Py_EQ) == 1; // exact ints: no Python code
	if (t == &PyFloat_Type) {
		double x = PyFloat_AS_DOUBLE(a), y = PyFloat_AS_DOUBLE(b);
		return memcmp(&x, &y, sizeof x) == 0; // bits: -0.0 and 0.0 print differently
	}
	return 0; // True, False and None are singletons: a is b above
}

static PyObject *host_copy(PyObject *self, PyObject *arg) { return rec_copy(arg, 0); }

static PyObject *host_same(PyObject *self, PyObject *args) {
	PyObject *a, *b;
	if (!PyArg_UnpackTuple(args, "same", 2, 2, &a, &b))
		return NULL;
	return PyBool_FromLong(rec_same(a, b, 0));
}

// changed(records, saved, n) -> the positions i < n whose record is not
// its saved copy (None in both: no record there).
static PyObject *host_changed(PyObject *self, PyObject *args) {
	PyObject *recs, *saved;
	Py_ssize_t n;
	if (!PyArg_ParseTuple(args, "O!O!n", &PyList_Type, &recs, &PyList_Type, &saved, &n))
		return NULL;
	if (n > PyList_GET_SIZE(recs) || n > PyList_GET_SIZE(saved)) {
		PyErr_SetString(PyExc_IndexError, "changed: n past the lists' end");
		return NULL;
	}
	PyObject *out = PyList_New(0);
	for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
		PyObject *a = PyList_GET_ITEM(recs, i), *b = PyList_GET_ITEM(saved, i);
		if (a == Py_None && b == Py_None)
			continue;
		if (!rec_same(a, b, 0)) {
			PyObject *pos = PyLong_FromSsize_t(i);
			if (pos == NULL || PyList_Append(out, pos) < 0)
				Py_CLEAR(out);
			Py_XDECREF(pos);
		}
	}
	return out;
}

// A call's arguments, decoded and checked in C for the common case (issue
// 39: 3.8 of a no-op call's 9 us were this in Python): a JSON object that
// json's own C scanner reads to its end, whose keys are all parameters of
// the tool and include its required ones. Anything else takes the
// bootstrap's dispatch, which answers it (the same result or error).
static PyObject *fast_tools; // tuple of (function, parameters frozenset, required frozenset)
static PyObject *fast_run;   // _wasmenv_boot._run(function, kwargs) -> bytes
static PyObject *fast_scan;  // json's C scanner: scan_once(text, 0) -> (value, end)

static PyObject *host_tools(PyObject *self, PyObject *args) {
	PyObject *tools, *run, *scan;
	if (!PyArg_ParseTuple(args, "O!OO", &PyTuple_Type, &tools, &run, &scan))
		return NULL;
	for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tools); i++) {
		PyObject *e = PyTuple_GET_ITEM(tools, i);
		if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) != 3 || !PyFrozenSet_CheckExact(PyTuple_GET_ITEM(e, 1)) ||
		    !PyFrozenSet_CheckExact(PyTuple_GET_ITEM(e, 2))) {
			PyErr_SetString(PyExc_TypeError, "tools: expected (function, frozenset, frozenset) tuples");
			return NULL;
		}
	}
	Py_XSETREF(fast_tools, Py_NewRef(tools));
	Py_XSETREF(fast_run, Py_NewRef(run));
	Py_XSETREF(fast_scan, Py_NewRef(scan));
	Py_RETURN_NONE;
}

// fast_kwargs returns the call's arguments as a dict, or NULL with no
// error set when the common case does not apply.
static PyObject *fast_kwargs(PyObject *tool, const char *buf, uint32_t n) {
	if (n == 0 || buf[0] != '{')
		return NULL;
	PyObject *text = PyUnicode_DecodeUTF8(buf, (Py_ssize_t)n, NULL), *kwargs = NULL;
	PyObject *r = text ? PyObject_CallFunction(fast_scan, "On", text, (Py_ssize_t)0) : NULL;
	if (r != NULL && PyTuple_Check(r) && PyTuple_GET_SIZE(r) == 2 && PyDict_CheckExact(PyTuple_GET_ITEM(r, 0)) &&
	    PyLong_Check(PyTuple_GET_ITEM(r, 1)) && PyLong_AsSsize_t(PyTuple_GET_ITEM(r, 1)) == PyUnicode_GET_LENGTH(text)) {
		PyObject *d = PyTuple_GET_ITEM(r, 0), *params = PyTuple_GET_ITEM(tool, 1), *required = PyTuple_GET_ITEM(tool, 2), *k, *v;
		Py_ssize_t pos = 0, need = 0;
		int ok = 1;
		while (ok && PyDict_Next(d, &pos, &k, &v)) {
			ok = PySet_Contains(params, k) == 1;
			need += ok && PySet_Contains(required, k) == 1;
		}
		if (ok && need == PySet_GET_SIZE(required))
			kwargs = Py_NewRef(d);
	}
	PyErr_Clear();
	Py_XDECREF(r);
	Py_XDECREF(text);
	return kwargs;
}

static PyMethodDef host_methods[] = {
	{"sql", host_sql, METH_O, "Run a wire-encoded SQL request on the episode database."},
	{"query", host_query, METH_VARARGS, "query(sql, params) -> rows as dicts, or the SQL error as str."},
	{"execute", host_execute, METH_VARARGS, "execute(sql, params) -> (rows affected, last rowid), or the SQL error as str."},
	{"clock", host_clock, METH_NOARGS, "The episode clock, unix nanoseconds."},
	{"random", host_random, METH_NOARGS, "64 bits from the episode's seeded random source."},
	{"log", host_log, METH_O, "A line for the operator's log."},
	{"guard", host_guard, METH_VARARGS, "guard(dicts, functions): what unchanged() compares with."},
	{"unchanged", host_unchanged, METH_NOARGS, "Whether every guarded dict and function is as guard() was given it."},
	{"copy", host_copy, METH_O, "copy(record): its dicts and lists copied, its leaves shared; ValueError if not JSON's types."},
	{"same", host_same, METH_VARARGS, "same(record, saved): whether record is exactly its saved copy (types, values, order)."},
	{"changed", host_changed, METH_VARARGS, "changed(records, saved, n): the positions below n whose record is not its saved copy."},
	{"tools", host_tools, METH_VARARGS, "tools(tools, run, scan_once): the tools whose common calls the glue decodes and checks."},
	{NULL, NULL, 0, NULL},
};

static struct PyModuleDef host_module = {PyModuleDef_HEAD_INIT, "_wasmenv", NULL, -1, host_methods};

static PyObject *init_host_module(void) { return PyModule_Create(&host_module); }

static uint8_t *arg_buf;
static uint32_t arg_cap;
static PyObject *dispatch; // _wasmenv_boot.dispatch(tool: int, args: bytes) -> bytes
static PyObject *last_out; // the previous call's output, kept until the next call

static void fail(const char *what, PyStatus st) {
	fprintf(stderr, "wasmenv python: %s: %s\n", what, st.err_msg ? st.err_msg : "(no message)");
	abort();
}

// start runs inside _initialize (after wasi-libc's preopens, a constructor of
// priority 51): a failure aborts, which the runtime reports with stderr.
__attribute__((constructor)) static void start(void) {
	PyImport_AppendInittab("_wasmenv", init_host_module);
	PyConfig config;
	PyConfig_InitIsolatedConfig(&config);
	config.site_import = 0;
	config.write_bytecode = 0;
	config.install_signal_handlers = 0;
	config.pathconfig_warnings = 0;
	config.module_search_paths_set = 1;
	config.safe_path = 1;
	// str hashes (and so set order) must not depend on the instance.
	config.use_hash_seed = 1;
	config.hash_seed = 0;
	static const wchar_t *paths[] = {L"/wasmenv", L"/lib/python3.13", L"/env"};
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		PyStatus st = PyWideStringList_Append(&config.module_search_paths, paths[i]);
		if (PyStatus_Exception(st))
			fail("search path", st);
	}
	PyStatus st = PyConfig_SetString(&config, &config.home, L"/"); // the stdlib is /lib/python3.13
	if (PyStatus_Exception(st))
		fail("home", st);
	st = Py_InitializeFromConfig(&config);
	PyConfig_Clear(&config);
	if (PyStatus_Exception(st))
		fail("initialize", st);
	PyObject *boot = PyImport_ImportModule("_wasmenv_boot");
	if (boot != NULL)
		dispatch = PyObject_GetAttrString(boot, "dispatch");
	if (dispatch == NULL) {
		PyErr_Print();
		fflush(stderr);
		abort();
	}
	Py_DECREF(boot);
}

__attribute__((export_name("wasmenv_buffer"))) uint32_t wasmenv_buffer(uint32_t n) {
	if (n > arg_cap) {
		free(arg_buf);
		arg_buf = malloc(n);
		arg_cap = arg_buf ? n : 0;
		if (arg_buf == NULL)
			return 0;
	}
	return (uint32_t)(uintptr_t)arg_buf;
}

// wasmenv_call returns addr<<32 | len of the output. An exception that
// escapes the bootstrap's own handling becomes status 3 (a crash in the
// Go sdk's terms) with the exception's text.
__attribute__((export_name("wasmenv_call"))) uint64_t wasmenv_call(uint32_t tool, uint32_t n) {
	Py_CLEAR(last_out);
	if (n > arg_cap)
		n = arg_cap;
	PyObject *kwargs = NULL;
	if (fast_tools != NULL && tool < (uint32_t)PyTuple_GET_SIZE(fast_tools))
		kwargs = fast_kwargs(PyTuple_GET_ITEM(fast_tools, tool), (const char *)arg_buf, n);
	if (kwargs != NULL) {
		PyObject *fn = Py_NewRef(PyTuple_GET_ITEM(PyTuple_GET_ITEM(fast_tools, tool), 0)), *run = Py_NewRef(fast_run);
		PyObject *argv[2] = {fn, kwargs};
		last_out = PyObject_Vectorcall(run, argv, 2, NULL);
		Py_DECREF(run);
		Py_DECREF(fn);
		Py_DECREF(kwargs);
	} else {
		last_out = PyObject_CallFunction(dispatch, "Iy#", tool, (const char *)arg_buf, (Py_ssize_t)n);
	}
	if (last_out == NULL || !PyBytes_Check(last_out)) {
		PyObject *exc = PyErr_GetRaisedException();
		PyObject *text = exc ? PyObject_Str(exc) : NULL;
		PyErr_Clear();
		const char *msg = text ? PyUnicode_AsUTF8(text) : NULL;
		PyErr_Clear();
		Py_CLEAR(last_out);
		last_out = PyBytes_FromFormat("%cpython tool crashed: %s", 3, msg ? msg : "unknown error");
		Py_XDECREF(text);
		Py_XDECREF(exc);
		if (last_out == NULL)
			abort(); // out of memory even for the message: let the runtime discard us
	}
	return ((uint64_t)(uintptr_t)PyBytes_AS_STRING(last_out) << 32) | (uint64_t)PyBytes_GET_SIZE(last_out);
}
