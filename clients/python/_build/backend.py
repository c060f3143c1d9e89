"""A PEP 517 / PEP 660 build backend using only the standard library.

It builds a pure-Python wheel of the wasmenv_client package, an sdist, and
an editable wheel, so that `pip install ./clients/python` (and `pip install
-e`) need nothing from a package index. Name and version come from
pyproject.toml's [project] table.
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "wasmenv_client"


def _project():
    text = open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8").read()
    table = text.split("[project]", 1)[1].split("\n[", 1)[0]
    def field(key):
        m = re.search(r'^%s\s*=\s*"([^"]*)"' % key, table, re.M)
        return m.group(1) if m else ""
    return field("name"), field("version"), field("description"), field("requires-python")


def _dist():
    name, version, _, _ = _project()
    return re.sub(r"[-_.]+", "_", name).lower(), version


def _metadata():
    name, version, summary, python = _project()
    lines = ["Metadata-Version: 2.1", "Name: " + name, "Version: " + version, "Summary: " + summary]
    if python:
        lines.append("Requires-Python: " + python)
    return "\n".join(lines) + "\n"


def _package_files():
    root = os.path.join(HERE, PACKAGE)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for f in sorted(filenames):
            if f.endswith(".py"):
                full = os.path.join(dirpath, f)
                yield full, os.path.relpath(full, HERE).replace(os.sep, "/")


def _write_wheel(directory, files):
    """files: list of (archive name, bytes). Returns the wheel's file name."""
    dist, version = _dist()
    info = "%s-%s.dist-info" % (dist, version)
    files = list(files) + [
        (info + "/METADATA", _metadata().encode()),
        (info + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: wasmenv-client _build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
    ]
    record = []
    for arc, data in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append("%s,sha256=%s,%d" % (arc, digest, len(data)))
    record.append(info + "/RECORD,,")
    files.append((info + "/RECORD", ("\n".join(record) + "\n").encode()))
    name = "%s-%s-py3-none-any.whl" % (dist, version)
    tmp = os.path.join(directory, name + ".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in files:
            zi = zipfile.ZipInfo(arc, date_time=(2024, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            z.writestr(zi, data, zipfile.ZIP_DEFLATED)
    os.replace(tmp, os.path.join(directory, name))
    return name


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = [(arc, open(full, "rb").read()) for full, arc in _package_files()]
    return _write_wheel(wheel_directory, files)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    dist, _ = _dist()
    return _write_wheel(wheel_directory, [(dist + ".pth", (HERE + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    dist, version = _dist()
    base = "%s-%s" % (dist, version)
    name = base + ".tar.gz"
    tmp = os.path.join(sdist_directory, name + ".tmp")
    with tarfile.open(tmp, "w:gz") as tar:
        def add(arc, data):
            ti = tarfile.TarInfo(base + "/" + arc)
            ti.size, ti.mtime, ti.mode = len(data), 1704067200, 0o644
            tar.addfile(ti, io.BytesIO(data))
        add("PKG-INFO", _metadata().encode())
        add("pyproject.toml", open(os.path.join(HERE, "pyproject.toml"), "rb").read())
        add("_build/backend.py", open(os.path.abspath(__file__), "rb").read())
        for full, arc in _package_files():
            add(arc, open(full, "rb").read())
    os.replace(tmp, os.path.join(sdist_directory, name))
    return name
