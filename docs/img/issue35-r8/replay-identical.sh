#!/bin/bash
# Replays every shipped env's tasks (ground truth + answer) and the τ-bench
# reference episodes with the base and the new wasmenv; outputs must be byte-identical.
# Build the two first, e.g.:
#   BASE=/tmp/perf-base: go build -tags wasmtime -o /tmp/perf-base ./cmd/wasmenv at 33ff429
#   NEW=/tmp/r8/wasmenv-new: go build -o /tmp/r8/wasmenv-new ./cmd/wasmenv on this branch
# Run it from inside the checkout.
set -e
cd "$(git rev-parse --show-toplevel)"
D=/tmp/r8/ident
mkdir -p $D
for env in airline calendar chinook hr messaging northwind sakila store taubench-airline taubench-retail; do
  ${NEW:-/tmp/r8/wasmenv-new} build envs/$env -o $D/$env.wasm > /dev/null
  ${NEW:-/tmp/r8/wasmenv-new} tasks --json $D/$env.wasm | python3 -c '
import json,sys
for t in json.load(sys.stdin):
    a=t.get("answer"); line={"id":t["id"],"calls":t.get("calls") or [],"task":t["id"]}
    if a:
        if a.get("alone"): line["answer"]=a["alone"]["value"]
        elif a.get("match")!="regex": line["answer"]=a.get("value","")
        else: line["answer"]=""
    print(json.dumps(line))
' > $D/$env.in.jsonl
  if [ -d envs/$env/testdata ]; then
    cat envs/$env/testdata/*_ref.jsonl | python3 -c '
import json,sys
for l in sys.stdin:
    r=json.loads(l); line={"id":"ref-"+r["id"],"calls":r["calls"],"task":r["id"]}
    if r.get("expected_outputs"): line["answer"]=", ".join(r["expected_outputs"])
    print(json.dumps(line))
' >> $D/$env.in.jsonl || true
  fi
  for side in base new; do
    $(if [ $side = base ]; then echo ${BASE:-/tmp/perf-base}; else echo ${NEW:-/tmp/r8/wasmenv-new}; fi) replay $D/$env.wasm --input $D/$env.in.jsonl > $D/$env.$side.out 2>$D/$env.$side.err || echo "$env $side: exit $?"
  done
  n=$(wc -l < $D/$env.in.jsonl); r1=$(grep -c '"reward":1,' $D/$env.new.out || true)
  if cmp -s $D/$env.base.out $D/$env.new.out; then echo "$env: $n episodes, identical ($r1 scored 1)"; else echo "$env: DIFFERENT"; fi
done
