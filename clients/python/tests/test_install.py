"""`pip install ./clients/python` works offline, into a fresh virtual
environment, and the installed package imports from outside the source
tree (issue 14, point 8)."""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.dirname(HERE)


class InstallTest(unittest.TestCase):
    def test_pip_install_offline(self):
        with tempfile.TemporaryDirectory() as tmp:
            venv = os.path.join(tmp, "venv")
            made = subprocess.run([sys.executable, "-m", "venv", venv], capture_output=True, text=True)
            if made.returncode != 0:
                self.skipTest("no venv module for %s: %s" % (sys.executable, made.stderr.strip()))
            python = os.path.join(venv, "bin", "python")
            if subprocess.run([python, "-m", "pip", "--version"], capture_output=True).returncode != 0:
                self.skipTest("no pip in a venv of %s" % sys.executable)
            env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")  # offline, as here
            for args in ([PROJECT], ["-e", PROJECT]):
                out = subprocess.run([python, "-m", "pip", "install", "--quiet"] + args, capture_output=True, text=True, env=env)
                self.assertEqual(out.returncode, 0, "pip install %s:\n%s%s" % (" ".join(args), out.stdout, out.stderr))
                got = subprocess.run([python, "-c", "import wasmenv_client as w; print(w.Client.__name__, w.__file__)"],
                                     capture_output=True, text=True, cwd=tmp)
                self.assertEqual(got.returncode, 0, got.stderr)
                self.assertTrue(got.stdout.startswith("Client "), got.stdout)
                subprocess.run([python, "-m", "pip", "uninstall", "--yes", "--quiet", "wasmenv-client"], check=True, env=env)


if __name__ == "__main__":
    unittest.main()
