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
// response bytes, clock() -> unix ns, random() -> 64 bits, log(text).
#include <Python.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

static PyMethodDef host_methods[] = {
	{"sql", host_sql, METH_O, "Run a wire-encoded SQL request on the episode database."},
	{"clock", host_clock, METH_NOARGS, "The episode clock, unix nanoseconds."},
	{"random", host_random, METH_NOARGS, "64 bits from the episode's seeded random source."},
	{"log", host_log, METH_O, "A line for the operator's log."},
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
	last_out = PyObject_CallFunction(dispatch, "Iy#", tool, (const char *)arg_buf, (Py_ssize_t)n);
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
