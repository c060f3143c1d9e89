"""The served policy: the model behind a lock, the batching queue, and
one chat-completions request → response (server.py puts it on HTTP).

Requests that arrive together are generated in one batch (a queue drained
by one worker thread; it waits `batch_wait_s` for company, up to
`max_batch` sequences). Extras, as vLLM spells them: `"logprobs": true` →
choices[i].logprobs.content = [{token, logprob}]; `"return_token_ids":
true` → choices[i].token_ids and a top-level prompt_token_ids. The model's
`<tool_call>{...}</tool_call>` text becomes message.tool_calls; anything
that does not parse stays in content.
"""

import math
import queue
import sys
import threading
import time
import uuid

import torch

from . import checkpoint
from . import device as devmod

# The one answer to a refused reload (Policy.reload).
REFUSED_RELOAD = ("checkpoint not loaded: not a readable checkpoint directory of the served model "
                  "(same tokenizer and config, safetensors weights); the server's log says why")

MIN_TEMPERATURE = 1e-5  # below it (and above 0) logits/T overflow float32: refused
MAX_TEMPERATURE = 100.0


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
        and model config as the served one) into the served module. The
        configs are compared before any tensor is read or model built. Every
        refusal answers one message, whatever the path is (missing, a file,
        another model's checkpoint, a pickle): the answer tells nothing of
        the server's files; the server's log (stderr) says why."""
        try:
            meta, tok, _ = checkpoint.read_meta(path)
            cls, config = checkpoint.config_of(meta)
            if tok.to_dict() != self.tok.to_dict():
                raise ValueError("a different tokenizer")
            if cls is not type(self.model) or config != self.model.config:
                raise ValueError("a different model config")
            state = checkpoint.read_state(path, meta)
            checkpoint.check_state(self.model, state)
        except (OSError, ValueError, KeyError, TypeError, RecursionError) as e:  # PickleRefused is a ValueError
            print("wasmlearn: reload refused: %r: %s" % (path, e), file=sys.stderr, flush=True)
            raise ClientError(REFUSED_RELOAD) from None
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

    def __init__(self, policy, max_batch=64, batch_wait_s=0.02, max_pending=4096):
        self.policy, self.max_batch, self.wait = policy, max_batch, batch_wait_s
        self.max_pending = max_pending
        self.pending = 0  # sequences submitted and not yet generated
        self.plock = threading.Lock()
        self.q = queue.Queue()
        self.stopped = False
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def submit(self, prompt, budget, temperature, n=1):
        """Queues n sequences of one prompt, or none when that would take
        the queue past max_pending (ClientError 503: the client retries)."""
        with self.plock:
            if self.pending + n > self.max_pending:
                raise ClientError("server busy: %d sequences waiting (limit %d)" % (self.pending, self.max_pending),
                                  code="server_busy", status=503)
            self.pending += n
        jobs = [_Job(prompt, budget, temperature) for _ in range(n)]
        for j in jobs:
            self.q.put(j)
        return jobs

    def _finish(self, jobs):
        with self.plock:
            self.pending -= len(jobs)
        for j in jobs:
            j.done.set()

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
            self._finish(batch)
        for j in held:
            j.error = RuntimeError("server shutting down")
        self._finish(held)


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


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
    if not _is_int(n) or not 1 <= n <= 64:
        raise ClientError("n must be an integer in 1..64")
    temperature = req.get("temperature", 1.0)
    if (not isinstance(temperature, (int, float)) or isinstance(temperature, bool) or not math.isfinite(temperature)
            or not (temperature == 0 or MIN_TEMPERATURE <= temperature <= MAX_TEMPERATURE)):
        raise ClientError("temperature must be 0 (greedy) or a number in [%g, %g]" % (MIN_TEMPERATURE, MAX_TEMPERATURE))
    max_len = policy.model.config.max_len
    budget = req.get("max_completion_tokens", req.get("max_tokens", policy.default_max_tokens))
    if budget is None:
        budget = policy.default_max_tokens
    if not _is_int(budget) or budget < 1:
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
    jobs = batcher.submit(prompt, budget, float(temperature), n)
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
