"""OpenAI-compatible relay for `synth from-db --llm`: answers each rewrite prompt
from a recorded map {request: rewrite}; a prompt it has no recording for is
logged (JSONL: request + values to keep) and answered with the request itself
(which acceptRewrite keeps unchanged).

usage: python3 relay.py PORT RECORDED.json LOG.jsonl
"""
import json, sys, threading
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler

port, recorded, log = int(sys.argv[1]), sys.argv[2], sys.argv[3]
try:
    table = json.load(open(recorded, encoding="utf-8"))
except FileNotFoundError:
    table = {}
lock = threading.Lock()
hits = {"hit": 0, "miss": 0}

class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def reply(self, obj, code=200):
        b = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def do_GET(self):
        self.reply({"object": "list", "data": [{"id": "relay", "object": "model"}]})
    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        req = json.loads(self.rfile.read(n))
        prompt = req["messages"][-1]["content"]
        request = prompt.rsplit("\n\nRequest: ", 1)[1]
        keep = prompt.split("character for character: ", 1)[1].split(". Do not add facts", 1)[0]
        with lock:
            out = table.get(request)
            if out is None:
                hits["miss"] += 1
                with open(log, "a", encoding="utf-8") as f:
                    f.write(json.dumps({"request": request, "keep": keep}, ensure_ascii=False) + "\n")
                out = request
            else:
                hits["hit"] += 1
        self.reply({"id": "r", "object": "chat.completion", "model": req.get("model", "relay"),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": out}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}})

ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
