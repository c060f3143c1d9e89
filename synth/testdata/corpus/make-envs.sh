#!/bin/sh
# Regenerates the environments of envs/ that synth from-db makes from the
# corpus (run from the repository root; WASMENV names the binary):
#
#   go build -o /tmp/wasmenv ./cmd/wasmenv && WASMENV=/tmp/wasmenv sh synth/testdata/corpus/make-envs.sh
#
# Each is the corpus dump loaded into SQLite, then `wasmenv synth from-db`
# with 220 tasks, seed 1 and the domain toolset; the tool graph files are left out (run
# `wasmenv synth graph envs/NAME` to see them).
#
# The shipped environments come from the model route (--llm, docs/SYNTHESIS.md):
# a model's answers, recorded through cmd/llmrelay, are replayed from
# synth/testdata/corpus/llm/NAME, so no model is needed. LLM=0 gives the
# procedural route instead.
set -eu
W=${WASMENV:-wasmenv}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in chinook northwind sakila hr airline; do
	python3 - "synth/testdata/corpus/$n.sql" "$tmp/$n.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[2])
c.executescript(open(sys.argv[1], encoding="utf-8").read())
c.commit()
PY
	src=""
	[ -f "envs/$n/SOURCE.md" ] && src=$(cat "envs/$n/SOURCE.md")
	set -- --tasks 220 --seed 1 --toolset domain
	if [ "${LLM:-1}" != 0 ] && [ -f "synth/testdata/corpus/llm/$n/index.json" ]; then
		set -- "$@" --llm "claude (via relay)" --llm-batch 40 --llm-replay "synth/testdata/corpus/llm/$n"
	fi
	"$W" synth from-db "$tmp/$n.sqlite" -o "envs/$n" "$@" >"$tmp/$n.log"
	rm -f "envs/$n/graph.json" "envs/$n/graph.dot"
	[ -n "$src" ] && printf '%s\n' "$src" >"envs/$n/SOURCE.md"
	tail -n 12 "$tmp/$n.log"
done
