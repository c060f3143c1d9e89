"""The admin route: a bearer token, and checkpoints loaded without
unpickling (issue 25, finding 1)."""

import json
import os
import pickle
import shutil
import stat
import tempfile
import unittest
import urllib.error
import urllib.request

from fixtures import small_model, store_tokenizer, template

from wasmlearn import checkpoint, device
from wasmlearn import safetensors as st
from wasmlearn.server import Policy, Server, load_admin_token


class _Boom:
    """Pickles to a call of os.system: what a hostile ckpt.pt holds."""

    def __init__(self, cmd):
        self.cmd = cmd

    def __reduce__(self):
        return (os.system, (self.cmd,))


def post(url, body, token=None):
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = "Bearer " + token
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


class AdminReloadTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="wasmlearn-admin-")
        tok = store_tokenizer()
        cls.tpl = template(tok)
        cls.model = small_model(tok)
        cls.policy = Policy(cls.model.eval(), tok, cls.tpl, device.pick("cpu"))
        cls.token = "s3cret-token"
        cls.server = Server(cls.policy, admin_token=cls.token).start()
        cls.admin = cls.server.url[:-len("/v1")] + "/admin/reload"

    @classmethod
    def tearDownClass(cls):
        cls.server.close()
        shutil.rmtree(cls.tmp)

    def hostile_dir(self, name):
        """A checkpoint directory with everything right except a ckpt.pt
        whose unpickling runs `touch MARKER`."""
        d = os.path.join(self.tmp, name)
        checkpoint.save(d, self.model, self.policy.tok, self.tpl)
        for f in os.listdir(d):
            if f.endswith(".safetensors"):
                os.unlink(os.path.join(d, f))
        marker = os.path.join(self.tmp, name + ".MARKER")
        with open(os.path.join(d, "ckpt.pt"), "wb") as f:
            pickle.dump(_Boom("touch " + marker), f)
        return d, marker

    def test_no_token_is_401_and_nothing_runs(self):
        d, marker = self.hostile_dir("anon")
        for tok in (None, "", "wrong", self.token + "x", self.token[:-1]):
            status, r = post(self.admin, {"path": d}, token=tok)
            self.assertEqual(status, 401, (tok, r))
        self.assertFalse(os.path.exists(marker), "the pickle ran")

    def test_pickle_checkpoint_refused_with_token(self):
        d, marker = self.hostile_dir("authed")
        status, r = post(self.admin, {"path": d}, token=self.token)
        self.assertEqual(status, 400, r)
        self.assertIn("not loaded", r["error"]["message"])  # the log says why: a pickle
        self.assertFalse(os.path.exists(marker), "the pickle ran")

    def test_deep_safetensors_header_is_a_format_error(self):
        # a header nested 100,000 deep: a format error, never RecursionError
        # (issue 37 finding 14)
        header = b"[" * 100000 + b"]" * 100000
        with self.assertRaises(st.FormatError):
            st.loads(len(header).to_bytes(8, "little") + header)
        d = os.path.join(self.tmp, "deep")
        checkpoint.save(d, self.model, self.policy.tok, self.tpl)
        with open(os.path.join(d, checkpoint.WEIGHTS), "wb") as f:
            f.write(len(header).to_bytes(8, "little") + header)
        status, r = post(self.admin, {"path": d}, token=self.token)
        self.assertEqual(status, 400, r)

    def test_reload_compares_config_before_building(self):
        # a checkpoint whose config differs is refused before any model is
        # built from it (its config could ask for any size)
        d = os.path.join(self.tmp, "other-config")
        checkpoint.save(d, self.model, self.policy.tok, self.tpl)
        with open(os.path.join(d, "meta.json")) as f:
            meta = json.load(f)
        meta["model"]["n_layer"] += 1  # small: the code before this built it (and then refused)
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(meta, f)
        built = []
        real = checkpoint.build
        checkpoint.build = lambda m: built.append(m) or real(m)
        try:
            status, r = post(self.admin, {"path": d}, token=self.token)
        finally:
            checkpoint.build = real
        self.assertEqual(status, 400, r)
        self.assertEqual(built, [])

    def test_every_refused_path_gets_one_message(self):
        # whether a path exists, is a file, a directory, a checkpoint of
        # another model or a pickle: the same answer (no existence oracle)
        empty = os.path.join(self.tmp, "empty")
        os.makedirs(empty, exist_ok=True)
        afile = os.path.join(self.tmp, "afile")
        with open(afile, "w") as f:
            f.write("x")
        pickled, _ = self.hostile_dir("oracle")
        other = os.path.join(self.tmp, "other-tok")
        checkpoint.save(other, self.model, self.policy.tok, self.tpl)
        with open(os.path.join(other, "meta.json")) as f:
            meta = json.load(f)
        meta["model"]["n_layer"] += 1
        with open(os.path.join(other, "meta.json"), "w") as f:
            json.dump(meta, f)
        messages = set()
        for path in ("/nonexistent/ckpt", "/etc", "/root/.ssh", empty, afile, pickled, other, "\x00bad"):
            status, r = post(self.admin, {"path": path}, token=self.token)
            self.assertEqual(status, 400, (path, r))
            messages.add(r["error"]["message"].replace(path, "PATH"))
        self.assertEqual(len(messages), 1, messages)

    def test_safetensors_checkpoint_reloads(self):
        d = os.path.join(self.tmp, "good")
        checkpoint.save(d, self.model, self.policy.tok, self.tpl, step=7)
        self.assertFalse(os.path.exists(os.path.join(d, "ckpt.pt")))
        v = self.policy.version
        status, r = post(self.admin, {"path": d}, token=self.token)
        self.assertEqual((status, r.get("step")), (200, 7), r)
        self.assertEqual(self.policy.version, v + 1)


class AdminDisabledTest(unittest.TestCase):
    def test_no_token_configured_means_no_admin(self):
        tok = store_tokenizer()
        policy = Policy(small_model(tok).eval(), tok, template(tok), device.pick("cpu"))
        srv = Server(policy).start()
        try:
            self.assertEqual(srv.httpd.server_address[0], "127.0.0.1")
            status, r = post(srv.url[:-len("/v1")] + "/admin/reload", {"path": "/nonexistent"}, token="")
            self.assertEqual(status, 401, r)
        finally:
            srv.close()


class AdminTokenFileTest(unittest.TestCase):
    def test_generated_token_file_is_private_and_reused(self):
        d = tempfile.mkdtemp(prefix="wasmlearn-tok-")
        try:
            path = os.path.join(d, "admin-token")
            t1 = load_admin_token(path)
            self.assertGreaterEqual(len(t1), 32)
            self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)
            self.assertEqual(load_admin_token(path), t1)
            os.chmod(path, 0o644)
            with self.assertRaises(ValueError):
                load_admin_token(path)  # readable by others: refused
        finally:
            shutil.rmtree(d)


if __name__ == "__main__":
    unittest.main()
