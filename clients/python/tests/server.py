"""A real `wasmenv serve` on a free 127.0.0.1 port, for the tests.

The wasmenv binary is built once per test process with `go build` (or taken
from $WASMENV_BIN), the testdata mini bundle with `wasmenv build`; the server
is started with --addr 127.0.0.1:0 and the address it prints is read back.
"""

import os
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))

_lock = threading.Lock()
_built = {}


def built():
    """(binary, mini bundle), built once per process."""
    with _lock:
        if not _built:
            tmp = tempfile.mkdtemp(prefix="wasmenv-pytest-")
            binary = os.environ.get("WASMENV_BIN")
            if not binary:
                binary = os.path.join(tmp, "wasmenv")
                subprocess.run(["go", "build", "-o", binary, "./cmd/wasmenv"], cwd=REPO, check=True)
            bundle = os.path.join(tmp, "mini.wasm")
            subprocess.run([binary, "build", "testdata/envs/mini", "-o", bundle], cwd=REPO, check=True,
                           stdout=subprocess.DEVNULL)
            _built.update(binary=binary, bundle=bundle, tmp=tmp)
        return _built["binary"], _built["bundle"]


def scratch():
    """The folder the built files of this test process are in."""
    built()
    return _built["tmp"]


def example_bundle(name):
    """The bundle of an environment embedded in the binary, built once per
    process (`wasmenv build --example NAME`; the build caches its module)."""
    binary, _ = built()
    path = os.path.join(scratch(), name + ".wasm")
    with _lock:
        if not os.path.exists(path):
            subprocess.run([binary, "build", "--example", name, "-o", path], check=True, stdout=subprocess.DEVNULL)
    return path


class Server:
    def __init__(self, *args, token=None):
        binary, bundle = built()
        cmd = [binary, "serve", bundle, "--addr", "127.0.0.1:0"] + list(args)
        if token:
            cmd += ["--token", token]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("listening on "):
            self.proc.kill()
            raise RuntimeError("server did not start: %r %s" % (line, self.proc.stderr.read()))
        self.url = line[len("listening on "):]

    def kill(self):
        """SIGKILL: the server dies mid-whatever, as a crash would."""
        self.proc.kill()
        self.proc.wait(timeout=15)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()  # SIGTERM: graceful shutdown
        try:
            code = self.proc.wait(timeout=15)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.stdout.close()
            self.proc.stderr.close()
        return code
