"""Packs the stdlib subset wasmenv's Python tool code may use into a zip.

Two steps, because the native build python (needed for its bytecode, the
interpreter's) has no binascii for zipfile:
    native/python pack_stdlib.py tree LIB_DIR OUT_DIR   (sources and bytecode)
    python3 pack_stdlib.py zip OUT_DIR OUT_ZIP          (any python3)

The subset is the closure (every import statement, followed) of what the interpreter imports at
start-up and of the modules tool code is allowed to import (ALLOWED, which
sdk/python's build check mirrors), minus EXCLUDE, plus the codecs of ENCODINGS
(looked up by name, so no import statement names them). Each module is stored as source and as bytecode
compiled with unchecked hashes (no timestamps), members sorted and dated
1980-01-01: the zip is a function of the source tree alone. Members are
stored, not deflated: the file is compressed as a whole for the repository.
"""

import ast
import importlib.util
import os
import py_compile
import sys

# Modules tool code may import (sdk/python/_wasmenv_check.py has the same list).
ALLOWED = [
    "base64", "bisect", "calendar", "collections", "collections.abc", "copy",
    "dataclasses", "datetime", "decimal", "difflib", "enum", "fractions",
    "functools", "heapq", "itertools", "json", "math", "operator", "re",
    "statistics", "string", "textwrap", "typing", "unicodedata",
]
# What the interpreter and the bootstrap import themselves.
STARTUP = ["encodings", "struct", "codecs", "io", "abc", "stat", "posixpath", "genericpath",
           "os", "_collections_abc", "ast", "inspect", "traceback", "linecache",
           "tokenize", "warnings", "keyword", "reprlib", "contextlib"]
# Never shipped, though some shipped module may import them (lazily, on a
# path tool code cannot reach): network, processes, files, debuggers, GUIs.
EXCLUDE = frozenset([
    "argparse", "asyncio", "concurrent", "ctypes", "curses", "dbm", "doctest", "email",
    "ensurepip", "ftplib", "html", "http", "idlelib", "imaplib", "lib2to3", "logging",
    "mailbox", "multiprocessing", "pathlib", "pdb", "pickle", "pydoc", "pydoc_data",
    "shutil", "smtplib", "socket", "socketserver", "sqlite3", "ssl", "subprocess",
    "tarfile", "test", "tkinter", "turtle", "turtledemo", "unittest", "urllib", "venv",
    "wsgiref", "xml", "xmlrpc", "zipapp", "zipfile", "zipimport", "selectors", "signal",
])
# The codecs the interpreter and JSON text need (the rest of encodings is 2.5 MB).
ENCODINGS = ["__init__", "aliases", "ascii", "latin_1", "utf_8", "utf_8_sig", "utf_16",
             "utf_32", "raw_unicode_escape", "unicode_escape"]


def module_file(lib, name):
    """The source file of module name under lib, or None (a C module)."""
    base = os.path.join(lib, *name.split("."))
    for f in (base + ".py", os.path.join(base, "__init__.py")):
        if os.path.isfile(f):
            return f
    return None


def closure(lib, roots):
    """The source files of roots and of everything they may import.

    Every import statement counts, at any depth (an over-approximation);
    imports that name no source file under lib are C modules or absent.
    """
    seen, todo = {}, list(roots)
    while todo:
        name = todo.pop()
        if name in seen or name.split(".")[0] in EXCLUDE:
            continue
        path = module_file(lib, name)
        seen[name] = path
        if path is None:
            continue
        parts = name.split(".")
        for i in range(1, len(parts)):  # parent packages
            todo.append(".".join(parts[:i]))
        is_pkg = path.endswith("__init__.py")
        with open(path, "rb") as f:
            tree = ast.parse(f.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                todo += [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = parts if is_pkg else parts[:-1]
                    base = base[:len(base) - (node.level - 1)]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module
                todo.append(mod)
                todo += [mod + "." + a.name for a in node.names if a.name != "*"]
    return sorted(os.path.relpath(p, lib) for p in seen.values() if p)


def tree(lib, out):
    files = {f for f in closure(lib, ALLOWED + STARTUP) if not f.startswith("encodings" + os.sep)}
    files |= {os.path.join("encodings", e + ".py") for e in ENCODINGS}
    for rel in sorted(files):
        src = os.path.join(lib, rel)
        dst = os.path.join(out, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(src, "rb") as a, open(dst, "wb") as b:
            b.write(a.read())
        py_compile.compile(src, cfile=os.path.join(out, importlib.util.cache_from_source(rel)),
                           dfile="/lib/python3.13/" + rel, doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    print(f"{len(files)} modules -> {out}", file=sys.stderr)


def pack(tree_dir, out):
    import zipfile
    names = []
    for root, _, files in os.walk(tree_dir):
        for f in files:
            names.append(os.path.relpath(os.path.join(root, f), tree_dir))
    tmp = out + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as z:
        for name in sorted(names):
            with open(os.path.join(tree_dir, name), "rb") as fh:
                put(z, name, fh.read())
    os.replace(tmp, out)


def put(z, name, data):
    import zipfile
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.external_attr = 0o644 << 16
    z.writestr(info, data)


if __name__ == "__main__":
    {"tree": tree, "zip": pack}[sys.argv[1]](*sys.argv[2:])
