#!/bin/sh
# Rebuilds one environment of the --llm rewrite experiment (README.md):
#   WASMENV=/tmp/wasmenv sh docs/judge/llm-rewrite/build.sh NAME DB.sqlite OUTDIR
# `synth from-db --llm` talks to relay.py on 127.0.0.1, which answers each rewrite
# prompt with the recorded rewrite (rewrites-NAME.json) and any other with the request
# itself (logged to OUTDIR/miss-NAME.jsonl; the tool then keeps the grammar's text).
# The recordings match the generator of main b82ad47; a later generator asks other
# requests, which are then misses.
set -eu
n=$1; db=$2; out=$3
here=$(dirname "$0")
port=${PORT:-18940}
mkdir -p "$out"
python3 "$here/relay.py" "$port" "$here/rewrites-$n.json" "$out/miss-$n.jsonl" & pid=$!
trap 'kill $pid 2>/dev/null' EXIT
sleep 1
OPENAI_BASE_URL=http://127.0.0.1:$port/v1 OPENAI_API_KEY=unused "${WASMENV:-wasmenv}" synth from-db "$db" \
	-o "$out/$n" --bundle "$out/$n.wasm" --tasks 220 --seed 1 --llm recorded
echo "$n: $(cat "$out/miss-$n.jsonl" 2>/dev/null | wc -l) prompts without a recording"
