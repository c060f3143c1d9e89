"""Packs the stdlib subset wasmenv's Python tool code may use into a zip.

Run with the native build of the same CPython release (its bytecode is the
interpreter's): pack_stdlib.py LIB_DIR WASI_BUILD_DIR OUT_ZIP.

The subset is the closure (modulefinder) of what the interpreter imports at
start-up and of the modules tool code is allowed to import (ALLOWED, which
sdk/python's build check mirrors), plus the encodings package, whose codecs
are looked up by name. Each module is stored as source and as bytecode
compiled with unchecked hashes (no timestamps), members sorted and dated
1980-01-01: the zip is a function of the source tree alone. Members are
stored, not deflated: the file is compressed as a whole for the repository.
"""

import importlib.util
import modulefinder
import os
import py_compile
import sys
import tempfile
import zipfile

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


def main(lib, wasi_build, out):
    finder = modulefinder.ModuleFinder(path=[lib], excludes=["tkinter", "test", "unittest", "pydoc"])
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        for m in ALLOWED + STARTUP:
            f.write(f"import {m}\n")
        f.write("import encodings.utf_8, encodings.latin_1, encodings.ascii, encodings.aliases\n")
    finder.run_script(f.name)
    os.unlink(f.name)
    files = set()
    for name, mod in finder.modules.items():
        path = mod.__file__
        if path and path.startswith(lib + os.sep) and path.endswith(".py"):
            files.add(os.path.relpath(path, lib))
    for entry in os.listdir(os.path.join(lib, "encodings")):
        if entry.endswith(".py"):
            files.add(os.path.join("encodings", entry))
    tmp = out + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as z:
        for rel in sorted(files):
            src = os.path.join(lib, rel)
            with open(src, "rb") as fh:
                put(z, rel, fh.read())
            cache = importlib.util.cache_from_source(rel)
            with tempfile.TemporaryDirectory() as d:
                pyc = os.path.join(d, "x.pyc")
                py_compile.compile(src, cfile=pyc, dfile="/lib/python3.13/" + rel, doraise=True,
                                   invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
                with open(pyc, "rb") as fh:
                    put(z, cache, fh.read())
    os.replace(tmp, out)
    print(f"{len(files)} modules -> {out}", file=sys.stderr)


def put(z, name, data):
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.external_attr = 0o644 << 16
    z.writestr(info, data)


if __name__ == "__main__":
    main(*sys.argv[1:])
