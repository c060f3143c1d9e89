"""An OpenAI-compatible chat-completions server for the policy (policy.py).

POST /v1/chat/completions with `tools` (function calling), GET /v1/models,
/health, /stats; POST /admin/reload loads a checkpoint directory into the
served module (the in-process loop updates the same module under
`policy.lock` instead). Admin routes need `Authorization: Bearer TOKEN`
(the server's admin token; without one they are off) and load safetensors
only (checkpoint.py: no pickle is ever read). The server binds 127.0.0.1
unless told otherwise.

Limits (docs/TRAINING.md "Server limits"): request bodies up to
`max_body_bytes` (413 above, judged from Content-Length before a byte is
read), every body read within `read_timeout_s` (408 after; the same
timeout bounds each read, an idle keep-alive connection, and the request
line with its headers in all, so a client trickling its headers loses the
connection), at most `max_connections` connections at once (503
beyond), at most `max_pending` sequences queued for generation (503
beyond), listen backlog 1024.
"""

import hashlib
import hmac
import json
import os
import secrets
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .policy import Batcher, ClientError, Policy, completion  # noqa: F401  (Policy: re-exported)

DEFAULT_MAX_BODY = 8 << 20
DEFAULT_READ_TIMEOUT = 30.0
DEFAULT_MAX_CONNECTIONS = 512
DEFAULT_MAX_PENDING = 4096


def _digest(token):
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


def load_admin_token(path):
    """The admin token kept in file `path`: read when the file exists (it
    must not be readable by group or others), else generated and written
    with mode 0600."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        mode = os.stat(path).st_mode
        if mode & 0o077:
            raise ValueError("admin token file %s is readable by others (mode %o): chmod 600 it" % (path, mode & 0o777))
        with open(path) as f:
            tok = f.read().strip()
        if len(tok) < 16:
            raise ValueError("admin token file %s holds fewer than 16 characters" % path)
        return tok
    tok = secrets.token_urlsafe(32)
    with os.fdopen(fd, "w") as f:
        f.write(tok + "\n")
    return tok


def make_handler(policy, batcher, admin_token, max_body, read_timeout):
    admin_digest = _digest(admin_token) if admin_token else None

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = read_timeout  # each socket read; an idle keep-alive connection ends after it

        def log_message(self, *a):
            pass

        def handle_one_request(self):
            # The per-read timeout does not bound a head sent a byte at a
            # time: the server's watchdog closes a connection whose request
            # line and headers are not in by the deadline.
            self.server.watch(self.connection, read_timeout)
            try:
                super().handle_one_request()
            finally:
                self.server.unwatch(self.connection)

        def parse_request(self):
            ok = super().parse_request()  # reads the headers
            self.server.unwatch(self.connection)  # the head is in; the body has its own deadline
            return ok

        def _send(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            try:
                self.wfile.write(data)
            except OSError:  # the client left; nothing to tell it
                self.close_connection = True

        def _error(self, status, msg, code):
            self._send(status, {"error": {"message": msg, "type": "invalid_request_error"
                                          if status < 500 else "server_error", "code": code}})

        def do_GET(self):
            if self.path in ("/health", "/v1/health"):
                self._send(200, {"status": "ok", "version": policy.version})
            elif self.path == "/v1/models":
                self._send(200, {"object": "list", "data": [{"id": policy.name, "object": "model",
                                                              "owned_by": "wasmlearn"}]})
            elif self.path == "/stats":
                self._send(200, dict(policy.stats, version=policy.version))
            else:
                self._error(404, "no route %s" % self.path, "not_found")

        def _authorized(self):
            if admin_digest is None:
                return False
            h = self.headers.get("Authorization") or ""
            if not h.startswith("Bearer "):
                return False
            # digests have one length, so the comparison time says nothing of the token's
            return hmac.compare_digest(_digest(h[len("Bearer "):].strip()), admin_digest)

        def handle_expect_100(self):
            """Expect: 100-continue (curl sends it for bodies over 1 KiB):
            a body over the limit is refused before the client sends it."""
            cl = (self.headers.get("Content-Length") or "0").strip()
            if cl.isdigit() and cl.isascii() and int(cl) > max_body:
                self.close_connection = True
                self._error(413, "request body of %s bytes exceeds the limit of %d bytes" % (cl, max_body),
                            "request_too_large")
                return False
            return super().handle_expect_100()

        def _body(self):
            """The request body, read within the deadline. Any failure
            closes the connection: what is left of the body cannot be
            told from the next request."""
            if self.headers.get("Transfer-Encoding"):
                self.close_connection = True
                raise ClientError("send the body with a Content-Length (no Transfer-Encoding)",
                                  code="length_required", status=411)
            cl = (self.headers.get("Content-Length") or "0").strip()
            if not (cl.isdigit() and cl.isascii()) or len(cl) > 20:
                self.close_connection = True
                raise ClientError("Content-Length %r is not a non-negative integer" % cl[:40])
            n = int(cl)
            if n > max_body:
                self.close_connection = True
                raise ClientError("request body of %d bytes exceeds the limit of %d bytes" % (n, max_body),
                                  code="request_too_large", status=413)
            deadline = time.monotonic() + read_timeout
            parts, left = [], n
            try:
                while left:
                    rem = deadline - time.monotonic()
                    if rem <= 0:
                        raise socket.timeout()
                    self.connection.settimeout(min(rem, read_timeout))
                    b = self.rfile.read1(min(left, 1 << 16))
                    if not b:
                        self.close_connection = True
                        raise ClientError("request body cut short: %d of %d bytes" % (n - left, n))
                    parts.append(b)
                    left -= len(b)
            except (socket.timeout, TimeoutError):
                self.close_connection = True
                raise ClientError("request body not received within %g s" % read_timeout,
                                  code="request_timeout", status=408)
            finally:
                try:
                    self.connection.settimeout(read_timeout)
                except OSError:
                    pass
            return b"".join(parts)

        def do_POST(self):
            try:
                raw = self._body()
                if self.path.startswith("/admin/") and not self._authorized():
                    raise ClientError("admin routes need Authorization: Bearer <admin token>" if admin_digest
                                      else "admin routes are off: start the server with an admin token",
                                      code="unauthorized", status=401)
                try:
                    req = json.loads(raw or b"null")
                except (ValueError, RecursionError) as e:
                    raise ClientError("body is not JSON: %s" % e)
                if self.path in ("/v1/chat/completions", "/chat/completions"):
                    policy.stats["requests"] += 1
                    self._send(200, completion(policy, batcher, req))
                elif self.path == "/admin/reload":
                    if not isinstance(req, dict) or not isinstance(req.get("path"), str):
                        raise ClientError('body must be {"path": CHECKPOINT_DIR}')
                    meta = policy.reload(req["path"])
                    self._send(200, {"version": policy.version, "step": meta.get("step")})
                else:
                    self._error(404, "no route %s" % self.path, "not_found")
            except ClientError as e:
                self._error(e.status, str(e), e.code)
            except Exception as e:  # a bug of ours, not the client's
                self._error(500, "%s: %s" % (type(e).__name__, e), "internal_error")

    return Handler


_BUSY = json.dumps({"error": {"message": "too many connections", "type": "server_error",
                              "code": "server_busy"}}).encode()


class _HTTPServer(ThreadingHTTPServer):
    """ThreadingHTTPServer with a listen backlog of 1024 (the kernel may
    cap it at net.core.somaxconn) and at most max_connections threads: a
    connection beyond answers 503 from the accepting thread and is closed."""

    request_queue_size = 1024
    daemon_threads = True

    def __init__(self, addr, handler, max_connections):
        self.max_connections = max_connections
        self.active = 0
        self.active_lock = threading.Lock()
        self.heads = {}  # connection -> the time its request head must be in by
        self.heads_lock = threading.Lock()
        super().__init__(addr, handler)
        threading.Thread(target=self._watchdog, daemon=True).start()

    def watch(self, conn, within_s):
        with self.heads_lock:
            self.heads[conn] = time.monotonic() + within_s

    def unwatch(self, conn):
        with self.heads_lock:
            self.heads.pop(conn, None)

    def _watchdog(self):
        """One thread for every connection: shut down those whose request
        head is late (the handler's blocked read then ends)."""
        while True:
            time.sleep(0.1)
            now = time.monotonic()
            with self.heads_lock:
                late = [c for c, t in self.heads.items() if t <= now]
                for c in late:
                    del self.heads[c]
            for c in late:
                try:
                    c.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def process_request(self, request, client_address):
        with self.active_lock:
            full = self.active >= self.max_connections
            if not full:
                self.active += 1
        if full:
            try:
                request.settimeout(1.0)
                request.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                                b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(_BUSY) + _BUSY)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._release()

    def _release(self):
        with self.active_lock:
            self.active -= 1


class Server:
    """The HTTP server on host:port (port 0 picks a free one).
    admin_token: the bearer token of the /admin/ routes (None: they are off).
    The limits are described in the module doc."""

    def __init__(self, policy, host="127.0.0.1", port=0, max_batch=64, batch_wait_s=0.02, admin_token=None,
                 max_body_bytes=DEFAULT_MAX_BODY, read_timeout_s=DEFAULT_READ_TIMEOUT,
                 max_connections=DEFAULT_MAX_CONNECTIONS, max_pending=DEFAULT_MAX_PENDING):
        self.policy = policy
        self.max_body_bytes = max_body_bytes
        self.batcher = Batcher(policy, max_batch, batch_wait_s, max_pending=max_pending)
        handler = make_handler(policy, self.batcher, admin_token, max_body_bytes, read_timeout_s)
        self.httpd = _HTTPServer((host, port), handler, max_connections)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self):
        h, p = self.httpd.server_address[:2]
        return "http://%s:%d/v1" % (h, p)

    def start(self):
        self.thread.start()
        return self

    def close(self):
        if self.thread.is_alive():  # shutdown() waits for a serve_forever that was never started
            self.httpd.shutdown()
        self.httpd.server_close()
        self.batcher.close()
