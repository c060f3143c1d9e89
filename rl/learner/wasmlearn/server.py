"""An OpenAI-compatible chat-completions server for the policy.

POST /v1/chat/completions with `tools` (function calling): requests that
arrive together are generated in one batch (a queue drained by one worker
thread; it waits `batch_wait_s` for company, up to `max_batch` sequences).
Extras, as vLLM spells them: `"logprobs": true` → choices[i].logprobs.content
= [{token, logprob}]; `"return_token_ids": true` → choices[i].token_ids and a
top-level prompt_token_ids. The model's `<tool_call>{...}</tool_call>` text
becomes message.tool_calls; anything that does not parse stays in content.

The weights served are always the current ones: the trainer updates the same
module under `policy.lock` (in-process loop), or POST /admin/reload loads a
checkpoint directory (separate processes). Admin routes need
`Authorization: Bearer TOKEN` (the server's admin token; without one they
are off) and load safetensors only (checkpoint.py: no pickle is ever read).
The server binds 127.0.0.1 unless told otherwise.
"""

import hashlib
import hmac
import json
import os
import secrets
import queue
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import torch

from . import checkpoint
from . import device as devmod


class ClientError(Exception):
    def __init__(self, msg, code="invalid_request_error", status=400):
        super().__init__(msg)
        self.code, self.status = code, status


class Policy:
    """The served model, its tokenizer and template, and the lock that
    separates generation from weight updates."""

    def __init__(self, model, tok, template, dev, name="wasmlearn", seed=0):
        self.model, self.tok, self.template, self.dev = model, tok, template, dev
        self.name = name
        self.lock = threading.RLock()
        self.gen = torch.Generator(device=dev.type if dev.type == "cuda" else "cpu")
        self.gen.manual_seed(seed)
        self.version = 0
        # When set, every request samples at this temperature whatever it
        # asks (the loop's greedy evaluation through an unmodified engine).
        self.override_temperature = None
        self.default_max_tokens = 256
        self.stats = {"requests": 0, "batches": 0, "generated_tokens": 0, "generate_seconds": 0.0}

    def reload(self, path):
        """Loads the weights of checkpoint directory `path` (same tokenizer
        and model config as the served one) into the served module."""
        try:
            meta, tok, _, state = checkpoint.load_weights(path)
            model = checkpoint.build(meta)
        except (OSError, ValueError, KeyError, TypeError) as e:  # PickleRefused is a ValueError
            raise ClientError("cannot load %s: %s" % (path, e))
        if tok.to_dict() != self.tok.to_dict():
            raise ClientError("checkpoint %s has a different tokenizer" % path)
        if type(model) is not type(self.model) or model.config != self.model.config:
            raise ClientError("checkpoint %s has a different model config" % path)
        with self.lock:
            self.model.load_state_dict(state)
            self.version += 1
        return meta

    def generate(self, prompts, budgets, temperature):
        with self.lock:
            t0 = time.time()
            with devmod.autocast(self.dev):
                outs = self.model.generate(prompts, budgets, self.template.stop_ids, temperature,
                                           generator=self.gen, pad_id=self.tok.pad_id)
            self.stats["batches"] += 1
            self.stats["generated_tokens"] += sum(len(o[0]) for o in outs)
            self.stats["generate_seconds"] += time.time() - t0
        return outs


class _Job:
    def __init__(self, prompt, budget, temperature):
        self.prompt, self.budget, self.temperature = prompt, budget, temperature
        self.done = threading.Event()
        self.result = None
        self.error = None


class Batcher:
    """One worker thread: take the first waiting job, gather more for up to
    batch_wait_s (or until max_batch), generate them together. Jobs with a
    different temperature wait for the next batch."""

    def __init__(self, policy, max_batch=64, batch_wait_s=0.02):
        self.policy, self.max_batch, self.wait = policy, max_batch, batch_wait_s
        self.q = queue.Queue()
        self.stopped = False
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def submit(self, prompt, budget, temperature):
        j = _Job(prompt, budget, temperature)
        self.q.put(j)
        return j

    def close(self):
        self.stopped = True
        self.q.put(None)
        self.t.join(timeout=10)

    def _run(self):
        held = []
        while not self.stopped:
            first = held.pop(0) if held else self.q.get()
            if first is None:
                break
            batch, deadline = [first], time.time() + self.wait
            rest = []
            for j in held:
                (batch if j.temperature == first.temperature and len(batch) < self.max_batch else rest).append(j)
            held = rest
            while len(batch) < self.max_batch:
                left = deadline - time.time()
                if left <= 0:
                    break
                try:
                    j = self.q.get(timeout=left)
                except queue.Empty:
                    break
                if j is None:
                    self.stopped = True
                    break
                (batch if j.temperature == first.temperature else held).append(j)
            try:
                outs = self.policy.generate([j.prompt for j in batch], [j.budget for j in batch],
                                            first.temperature)
                for j, o in zip(batch, outs):
                    j.result = o
            except Exception as e:  # reported to each waiting request as a 500
                for j in batch:
                    j.error = e
            for j in batch:
                j.done.set()
        for j in held:
            j.error = RuntimeError("server shutting down")
            j.done.set()


def completion(policy, batcher, req):
    """A parsed request body → the response body (raises ClientError)."""
    if not isinstance(req, dict):
        raise ClientError("body must be a JSON object")
    msgs = req.get("messages")
    if not isinstance(msgs, list) or not msgs or not all(isinstance(m, dict) for m in msgs):
        raise ClientError("messages must be a non-empty list of objects")
    tools = req.get("tools") or []
    if not isinstance(tools, list):
        raise ClientError("tools must be a list")
    n = req.get("n", 1)
    if not isinstance(n, int) or not 1 <= n <= 64:
        raise ClientError("n must be an integer in 1..64")
    temperature = req.get("temperature", 1.0)
    if not isinstance(temperature, (int, float)) or temperature < 0:
        raise ClientError("temperature must be a number >= 0")
    max_len = policy.model.config.max_len
    budget = req.get("max_completion_tokens", req.get("max_tokens", policy.default_max_tokens))
    if not isinstance(budget, int) or budget < 1:
        raise ClientError("max_tokens must be a positive integer")
    try:
        prompt, _ = policy.template.render(msgs, tools, add_generation_prompt=True)
    except ValueError as e:
        raise ClientError(str(e))
    if len(prompt) + 1 > max_len:
        raise ClientError("prompt of %d tokens exceeds the model's context of %d" % (len(prompt), max_len),
                          code="context_length_exceeded")
    budget = min(budget, max_len - len(prompt))
    if policy.override_temperature is not None:
        temperature = policy.override_temperature
    jobs = [batcher.submit(prompt, budget, float(temperature)) for _ in range(n)]
    choices, gen_tokens = [], 0
    for i, j in enumerate(jobs):
        j.done.wait()
        if j.error is not None:
            raise j.error
        ids, lps, reason = j.result
        gen_tokens += len(ids)
        content, calls = policy.template.parse(ids)
        msg = {"role": "assistant", "content": content if (content or not calls) else None}
        if calls:
            msg["tool_calls"] = calls
            if reason == "stop":
                reason = "tool_calls"
        ch = {"index": i, "message": msg, "finish_reason": reason}
        if req.get("logprobs"):
            tt = policy.tok.token_text
            ch["logprobs"] = {"content": [{"token": tt(t), "logprob": lp} for t, lp in zip(ids, lps)]}
        if req.get("return_token_ids"):
            ch["token_ids"] = ids
        choices.append(ch)
    out = {"id": "chatcmpl-" + uuid.uuid4().hex, "object": "chat.completion",
           "created": int(time.time()), "model": policy.name, "choices": choices,
           "usage": {"prompt_tokens": len(prompt) * n, "completion_tokens": gen_tokens,
                     "total_tokens": len(prompt) * n + gen_tokens}}
    if req.get("return_token_ids"):
        out["prompt_token_ids"] = prompt
    return out


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


def make_handler(policy, batcher, admin_token=None):
    admin_digest = _digest(admin_token) if admin_token else None


    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def _send(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

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

        def do_POST(self):
            try:
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n) if n > 0 else b""
                if self.path.startswith("/admin/") and not self._authorized():
                    raise ClientError("admin routes need Authorization: Bearer <admin token>" if admin_digest
                                      else "admin routes are off: start the server with an admin token",
                                      code="unauthorized", status=401)
                try:
                    req = json.loads(raw or b"null")
                except ValueError as e:
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


class Server:
    """ThreadingHTTPServer on host:port (port 0 picks a free one).
    admin_token: the bearer token of the /admin/ routes (None: they are off)."""

    def __init__(self, policy, host="127.0.0.1", port=0, max_batch=64, batch_wait_s=0.02, admin_token=None):
        self.policy = policy
        self.batcher = Batcher(policy, max_batch, batch_wait_s)
        self.httpd = ThreadingHTTPServer((host, port), make_handler(policy, self.batcher, admin_token))
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self):
        h, p = self.httpd.server_address[:2]
        return "http://%s:%d/v1" % (h, p)

    def start(self):
        self.thread.start()
        return self

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.batcher.close()
