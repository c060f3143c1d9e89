"""The learner server under hostile clients (issue 25, finding 12): body
cap, read deadline, connection cap, listen backlog, malformed framing and
malformed fields answer 4xx/503, never 500, and never hold a thread."""

import json
import random
import socket
import threading
import time
import unittest
import urllib.error
import urllib.request

from fixtures import CONVO, TOOLS, small_model, store_tokenizer, template

from wasmlearn import device
from wasmlearn.server import DEFAULT_MAX_BODY, Policy, Server


def post(url, body, timeout=60):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def raw_request(addr, head, body=b"", timeout=20):
    """Sends raw bytes; returns (status, response bytes) or (None, b"")
    when the server closed without answering."""
    s = socket.create_connection(addr, timeout=timeout)
    try:
        s.sendall(head + body)
        buf = b""
        while True:
            try:
                b = s.recv(65536)
            except ConnectionResetError:
                break
            if not b:
                break
            buf += b
            if b"\r\n\r\n" in buf:
                h, _, rest = buf.partition(b"\r\n\r\n")
                n = [int(x.split(b":")[1]) for x in h.split(b"\r\n") if x.lower().startswith(b"content-length:")]
                if n and len(rest) >= n[0]:
                    break
        if not buf:
            return None, b""
        return int(buf.split(b" ", 2)[1]), buf
    finally:
        s.close()


def head_for(path, length, extra=b""):
    return (b"POST " + path + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: " + length + b"\r\n" + extra + b"\r\n")


class LimitsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tok = store_tokenizer()
        cls.policy = Policy(small_model(tok).eval(), tok, template(tok), device.pick("cpu"))
        cls.policy.default_max_tokens = 2
        cls.server = Server(cls.policy, max_body_bytes=4096, read_timeout_s=0.5, max_connections=6,
                            max_pending=8).start()
        cls.addr = cls.server.httpd.server_address[:2]
        cls.url = cls.server.url + "/chat/completions"

    @classmethod
    def tearDownClass(cls):
        cls.server.close()

    def test_defaults(self):
        self.assertEqual(DEFAULT_MAX_BODY, 8 << 20)
        srv = Server(self.policy)
        try:
            self.assertEqual(srv.max_body_bytes, 8 << 20)
            self.assertGreaterEqual(srv.httpd.request_queue_size, 1024)
        finally:
            srv.close()

    def test_body_over_cap_is_413_before_it_is_read(self):
        status, buf = raw_request(self.addr, head_for(b"/v1/chat/completions", b"4097"))
        self.assertEqual(status, 413, buf)
        self.assertIn(b"4096", buf)
        status, _ = post(self.url, {"messages": CONVO[:2], "pad": "x" * 5000})
        self.assertEqual(status, 413)
        # with Expect: 100-continue (curl's way), refused instead of "100 Continue"
        status, buf = raw_request(self.addr, head_for(b"/v1/chat/completions", b"5000", b"Expect: 100-continue\r\n"))
        self.assertEqual(status, 413, buf)
        status, buf = raw_request(self.addr, head_for(b"/v1/chat/completions", b"2", b"Expect: 100-continue\r\n"), b"{}")
        self.assertEqual(status, 100, buf)
        self.assertIn(b"HTTP/1.1 400", buf)  # then the answer to "{}" (no messages)

    def test_malformed_content_length_is_400(self):
        for v in (b"abc", b"-5", b"1e3", b"0x10", b"", b"99999999999999999999999999"):
            status, buf = raw_request(self.addr, head_for(b"/v1/chat/completions", v))
            self.assertIn(status, (400, 413), (v, buf))
        status, buf = raw_request(self.addr, b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                                             b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
        self.assertEqual(status, 411, buf)

    def test_stalled_body_is_cut_off(self):
        """Part of the body, then silence: 408 and the connection closed."""
        status, buf = raw_request(self.addr, head_for(b"/v1/chat/completions", b"100"), b'{"mess')
        self.assertEqual(status, 408, buf)

    def test_trickled_body_is_cut_off(self):
        """One byte at a time, each within the per-read timeout: the
        request's deadline still ends it."""
        s = socket.create_connection(self.addr, timeout=20)
        try:
            s.sendall(head_for(b"/v1/chat/completions", b"1000"))
            got = b""
            for _ in range(200):
                try:
                    s.sendall(b" ")
                except OSError:
                    break
                time.sleep(0.1)
                s.setblocking(False)
                try:
                    got += s.recv(65536)
                except BlockingIOError:
                    pass
                except OSError:
                    break
                finally:
                    s.setblocking(True)
                if got:
                    break
            self.assertTrue(got.startswith(b"HTTP/1.1 408"), got)
        finally:
            s.close()

    def test_trickled_headers_are_cut_off(self):
        """Headers one byte at a time, each within the per-read timeout
        (a slowloris): the request line and headers have one deadline in
        all, so the connection ends instead of holding a slot for ever."""
        s = socket.create_connection(self.addr, timeout=20)
        closed = False
        try:
            s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            for _ in range(200):  # 20 s of trickling, 40 read timeouts
                time.sleep(0.1)
                try:
                    s.sendall(b"a")
                    s.setblocking(False)
                    if s.recv(65536) == b"":
                        closed = True
                        break
                except BlockingIOError:
                    pass
                except OSError:
                    closed = True
                    break
                finally:
                    s.setblocking(True)
            self.assertTrue(closed, "a connection trickling its headers was kept open")
        finally:
            s.close()

    def test_connection_cap_answers_503(self):
        held = [socket.create_connection(self.addr, timeout=20) for _ in range(6)]
        try:
            for s in held:  # each holds a thread: headers sent, body pending
                s.sendall(head_for(b"/v1/chat/completions", b"100"))
            time.sleep(0.1)
            status, buf = raw_request(self.addr, b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            self.assertEqual(status, 503, buf)
        finally:
            for s in held:
                s.close()
        for _ in range(100):  # the held threads time out and free their slots
            status, _ = raw_request(self.addr, b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            if status == 200:
                break
            time.sleep(0.1)
        self.assertEqual(status, 200)

    def test_pending_cap_answers_503(self):
        status, r = post(self.url, {"messages": CONVO[:2], "n": 9})
        self.assertEqual(status, 503, r)
        self.assertEqual(r["error"]["code"], "server_busy")

    def test_malformed_fields_are_400(self):
        m = CONVO[:2]
        bad = [
            {"messages": [CONVO[0], {"role": "assistant", "tool_calls": [{"function": None}]}]},
            {"messages": [CONVO[0], {"role": "assistant", "tool_calls": [None]}]},
            {"messages": [CONVO[0], {"role": "assistant", "tool_calls": {"a": 1}}]},
            {"messages": [CONVO[0], {"role": "assistant", "tool_calls": [{"function": {"name": 3}}]}]},
            {"messages": [{"role": "user", "content": [{"type": "text", "text": 5}]}]},
            {"messages": [{"role": "user", "content": [7]}]},
            {"messages": m, "tools": [{"type": "function", "function": None}]},
            {"messages": m, "tools": [{"function": {"name": "x", "parameters": "y"}}]},
            {"messages": m, "tools": [{"function": {"name": "x", "parameters": {"properties": [{"a": 1}]}}}]},
            {"messages": m, "tools": [{"function": {"name": "x", "parameters": {"required": 5}}}]},
            {"messages": m, "tools": ["x"]},
            {"messages": m, "temperature": 1e-300},
            {"messages": m, "temperature": float("nan")},
            {"messages": m, "temperature": float("inf")},
            {"messages": m, "temperature": True},
            {"messages": m, "temperature": "1"},
            {"messages": m, "n": True},
            {"messages": m, "max_tokens": True},
            {"messages": m, "max_tokens": 1.5},
        ]
        for body in bad:
            status, r = post(self.url, body)
            self.assertEqual(status, 400, (body, r))
            self.assertIn("message", r["error"])
        for t in (0, 1e-5, 0.7, 1, 2):
            status, r = post(self.url, {"messages": m, "temperature": t, "max_tokens": 1})
            self.assertEqual(status, 200, (t, r))

    def test_random_shapes_never_500(self):
        """Random JSON in every field of a request: 200 or 4xx, never 500."""
        rng = random.Random(1)

        keys = ["role", "content", "tool_calls", "function", "name", "arguments", "parameters",
                "properties", "required", "text", "type"]

        def val(depth=0):
            k = rng.randrange(9 if depth < 3 else 6)
            if k == 0:
                return None
            if k == 1:
                return rng.random() < 0.5
            if k == 2:
                return rng.randint(-3, 3)
            if k == 3:
                return rng.choice([0.5, -1.0, 1e308, 1e-320])
            if k == 4:
                return ""
            if k == 5:
                return rng.choice(["user", "assistant", "tool", "system", "x", "function"])
            if k == 6:
                return [val(depth + 1) for _ in range(rng.randrange(3))]
            if k == 7:
                return {rng.choice(keys): val(depth + 1) for _ in range(rng.randrange(4))}
            return {"role": rng.choice(["user", "assistant", "tool"]), "content": val(depth + 1),
                    "tool_calls": val(depth + 1)}

        seen = set()
        for i in range(300):
            msgs = [val() for _ in range(rng.randrange(3))]
            if rng.random() < 0.5:
                msgs.insert(0, dict(CONVO[1]))
            body = {"messages": msgs, "max_tokens": 1}
            for key in ("tools", "temperature", "n", "logprobs", "return_token_ids"):
                if rng.random() < 0.4:
                    body[key] = val()
            if rng.random() < 0.3:
                body["max_tokens"] = val()
            status, r = post(self.url, body)
            self.assertIn(status, (200, 400), (i, body, r))
            seen.add(status)
        self.assertEqual(seen, {200, 400})  # both paths exercised


class BacklogTest(unittest.TestCase):
    def test_burst_of_connections_all_answered(self):
        tok = store_tokenizer()
        policy = Policy(small_model(tok).eval(), tok, template(tok), device.pick("cpu"))
        srv = Server(policy).start()
        try:
            addr = srv.httpd.server_address[:2]
            out = []

            def go():
                try:
                    out.append(raw_request(addr, b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")[0])
                except OSError as e:
                    out.append(repr(e))

            ts = [threading.Thread(target=go) for _ in range(64)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            self.assertEqual(out, [200] * 64)
        finally:
            srv.close()


if __name__ == "__main__":
    unittest.main()
