"""One rule for <tool_call> text: the Python parser (wasmenv_client.toolcalls,
used by the SkyRL adapter) reads every completion as the Go rollout engine
does (rl/toolcalls.go). The Go side is the real `wasmenv rollout
--tool-format hermes` talking to a scripted chat-completions server on
127.0.0.1 (a fake only for the LLM, as the project's rules allow); each
assistant message of the trajectory it writes carries the calls Go parsed."""

import json
import os
import subprocess
import tempfile
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.server import built
from wasmenv_client import parse_tool_calls
from wasmenv_client.rollouts import read_rollouts

# Completions an agent might write, hostile ones included.
SCRIPT = [
    'Let me look.\n<tool_call>\n{"name": "get", "arguments": {"key": "a"}}\n</tool_call>\n'
    '<tool_call>{"name": "get", "arguments": "{\\"key\\": \\"b\\"}"}</tool_call>',
    '<tool_call>{"name": "put", "arguments": {"key": "d", </tool_call>',
    '<tool_call>{"NAME": "list", "Parameters": {"order": "asc"}}</tool_call>',
    '<tool_call>{"name": "get", "arguments": null, "parameters": {"key": "c"}}</tool_call>',
    '<tool_call>{"arguments": {}}</tool_call><tool_call>[1, 2]</tool_call><tool_call>{"name": 5}</tool_call>',
    '<tool_call>{"name": "put", "arguments": {"key": "ü", "value": "\\u00e9 <b>", "n": 2}}</tool_call>'
    'text between<tool_call>{"name": "nope", "arguments": {}}</tool_call>',
    '<tool_call>{"name": "get", "arguments": {"key": "a"}}',  # unclosed: the model stopped at its stop token
    "All done.",
]


class _Policy(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        content = SCRIPT[min(turn, len(SCRIPT) - 1)]
        out = json.dumps({"id": "x", "object": "chat.completion", "model": body.get("model", "m"),
                          "choices": [{"index": 0, "finish_reason": "stop",
                                       "message": {"role": "assistant", "content": content}}],
                          "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass


class ParityTest(unittest.TestCase):
    def test_python_reads_what_go_reads(self):
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Policy)
        t = threading.Thread(target=httpd.serve_forever, daemon=True)
        t.start()
        binary, bundle = built()
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "r.jsonl")
            try:
                r = subprocess.run([binary, "rollout", bundle, "--policy", "openai", "--model", "scripted",
                                    "--base-url", "http://127.0.0.1:%d/v1" % httpd.server_address[1],
                                    "--tool-format", "hermes", "--group", "1", "--tasks", "put-d",
                                    "--max-turns", str(len(SCRIPT)), "-q", "-o", out],
                                   capture_output=True, text=True, timeout=120,
                                   env=dict(os.environ, OPENAI_API_KEY="x"))
            finally:
                httpd.shutdown()
                httpd.server_close()
            self.assertEqual(r.returncode, 0, r.stderr)
            traj = list(read_rollouts(out))[0]  # the full view: the first line is a toolset record
        msgs = traj["messages"]
        assistants = [i for i, m in enumerate(msgs) if m["role"] == "assistant"]
        self.assertEqual(len(assistants), len(SCRIPT), "the scripted turns did not all run")
        for n, i in enumerate(assistants):
            m = msgs[i]
            self.assertEqual(m["content"], SCRIPT[n])
            go = m.get("tool_calls") or []
            py = parse_tool_calls(m["content"])
            self.assertEqual(len(go), len(py), m["content"])
            results = [x["content"] for x in msgs[i + 1:i + 1 + len(go)]]
            for g, p, res in zip(go, py, results):
                self.assertEqual(g["function"]["name"], p.name, m["content"])
                go_malformed = res.startswith("Error: the <tool_call> block")
                self.assertEqual(go_malformed, bool(p.malformed), (m["content"], res, p))
                if p.malformed:
                    self.assertEqual(g["function"]["arguments"], p.arguments)
                else:
                    self.assertEqual(json.loads(g["function"]["arguments"]), json.loads(p.arguments),
                                     m["content"])


if __name__ == "__main__":
    unittest.main()
