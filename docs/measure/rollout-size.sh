#!/bin/sh
# Issue 26's rollout-size case, rebuilt: 4,000 random rollouts (--group 8) on an
# environment `synth from-db` makes from a newcomer's library database, written by
# main 035a7a9 (every line carried the tools) and by this checkout (toolset records,
# compact lines).
# Run from the repository root; needs git, go and python3. Prints the file sizes.
set -eu
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/old" 2>/dev/null; rm -rf "$tmp"' EXIT
git worktree add -q --detach "$tmp/old" 035a7a9
(cd "$tmp/old" && go build -o "$tmp/wasmenv-old" ./cmd/wasmenv)
go build -o "$tmp/wasmenv" ./cmd/wasmenv
python3 docs/measure/library_db.py "$tmp/lib.sqlite" synth/corpus_shapes_test.go
for v in old new; do
	w="$tmp/wasmenv"; [ $v = old ] && w="$tmp/wasmenv-old"
	"$w" synth from-db "$tmp/lib.sqlite" -o "$tmp/env-$v" --bundle "$tmp/$v.wasm" --tasks 500 --seed 3 >/dev/null 2>&1
	"$w" rollout "$tmp/$v.wasm" --policy random --group 8 -q -o "$tmp/$v.jsonl" >/dev/null 2>&1
done
for f in new.jsonl.gz new.parquet; do
	"$tmp/wasmenv" rollout "$tmp/new.wasm" --policy random --group 8 -q -o "$tmp/$f" >/dev/null 2>&1
done
"$tmp/wasmenv" rollout "$tmp/new.wasm" --policy random --group 8 -q --inline-tools -o "$tmp/new-inline.jsonl" >/dev/null 2>&1
cd "$tmp" && wc -c old.jsonl new-inline.jsonl new.jsonl new.jsonl.gz new.parquet
