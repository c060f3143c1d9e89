#!/bin/sh
# Issue 35 item 3, round 7: serve-bench's server CPU per call over HTTP and over
# GET /v1/ws (a frame per call; batch frames), at 16 and 1,000 episodes, the
# server in a process of its own, runs interleaved so that all meet the same
# load. Usage: serve-series.sh WASMENV MINI.wasm OUTDIR [REPS]
set -e
exe=$1 mini=$2 out=$3 reps=${4:-3}
mkdir -p "$out"
for r in $(seq 1 "$reps"); do
  for cfg in "http-16:--episodes 16" "socket-16:--episodes 16 --socket" "batch-16:--episodes 16 --socket --conns 2 --batch" \
             "http-1000:--episodes 1000" "socket-1000:--episodes 1000 --socket" "batch-1000:--episodes 1000 --socket --batch"; do
    name=${cfg%%:*} args=${cfg#*:}
    echo "$(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) $name run $r" >> "$out/load.txt"
    "$exe" serve-bench "$mini" --server-process --calls 60000 --duration 1m $args --json > "$out/$name-$r.json"
  done
done
python3 - "$out" <<'PY'
import json, glob, sys, statistics
out = sys.argv[1]
for name in ["http-16", "socket-16", "batch-16", "http-1000", "socket-1000", "batch-1000"]:
    rs = [json.load(open(f)) for f in sorted(glob.glob(f"{out}/{name}-*.json"))]
    s = [r["server_cpu_us_per_call"] for r in rs]
    c = [r["cpu_us_per_call"] for r in rs]
    print(f"{name:12s} server CPU/call µs {' / '.join(f'{x:.1f}' for x in s)} (median {statistics.median(s):.1f}); "
          f"load generator {statistics.median(c):.1f}; calls/s {statistics.median(r['calls_per_s'] for r in rs):.0f}; "
          f"errors {sum(r['errors'] for r in rs)}; leaks {sum(len(r.get('leaks') or []) for r in rs)}")
PY
