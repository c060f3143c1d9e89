#!/bin/sh
# Builds every database of a public text-to-SQL corpus into an environment
# and writes one line per database: its name, "ok" with the number of
# tasks and tools, or "no" with the one line `wasmenv synth from-db` gave
# for why not. Then the counts. Run from the repository root:
#
#   go build -o /tmp/wasmenv ./cmd/wasmenv
#   WASMENV=/tmp/wasmenv sh synth/testdata/textsql/run.sh [DIR] > summary.tsv
#
# DIR holds the databases as DIR/<name>/<name>.sqlite (Spider's layout).
# Without DIR, the corpus named in SOURCE.md is cloned at its pinned commit
# (needs git and the network). TASKS (default 10) tasks per database, seed
# 1; LIMIT_S (default 600) seconds per database.
set -eu
W=${WASMENV:-wasmenv}
TASKS=${TASKS:-10}
LIMIT_S=${LIMIT_S:-600}
REPO=https://github.com/LeLuven/MachineSpider
COMMIT=fec4cdd7c9954caaa8c88e3897b763302103d5a0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dir=${1:-}
if [ -z "$dir" ]; then
	git clone -q "$REPO" "$tmp/corpus"
	git -C "$tmp/corpus" checkout -q "$COMMIT"
	dir="$tmp/corpus/database"
fi
ok=0
no=0
for db in "$dir"/*/*.sqlite; do
	name=$(basename "$db" .sqlite)
	out="$tmp/out-$name"
	if timeout "$LIMIT_S" "$W" synth from-db "$db" -o "$out" --tasks "$TASKS" --seed 1 >"$tmp/log" 2>&1; then
		tasks=$(jq '.tasks.kept' "$out/synth-summary.json")
		tools=$(jq '.tools' "$out/synth-summary.json")
		printf '%s\tok\t%s tasks\t%s tools\n' "$name" "$tasks" "$tools"
		ok=$((ok + 1))
	else
		why=$(grep -E '^wasmenv: ' "$tmp/log" | tail -n 1 | sed 's/^wasmenv: //')
		[ -n "$why" ] || why="stopped after ${LIMIT_S}s"
		printf '%s\tno\t%s\n' "$name" "$why"
		no=$((no + 1))
	fi
	rm -rf "$out"
done
printf '# %d of %d build into an environment with tasks; %d say why not\n' "$ok" $((ok + no)) "$no"
