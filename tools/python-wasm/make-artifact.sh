#!/usr/bin/env bash
# Packs build.sh's output into the committed, pinned artifact that
# internal/pywasm embeds: dist/*.zst (zstd -19, deterministic) and
# dist/SHA256SUMS (of the decompressed files), and pins the same sums in
# internal/pywasm/interpreter.go, which refuses anything else at load.
#
# Usage: tools/python-wasm/make-artifact.sh [BUILD_DIR]   (default /work/pywasm-build)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${1:-/work/pywasm-build}/out"
dist="$repo/internal/pywasm/dist"
mkdir -p "$dist"
for f in python.wasm stdlib.zip; do
	zstd -q -19 --no-progress -f "$out/$f" -o "$dist/$f.zst"
done
(cd "$out" && sha256sum python.wasm stdlib.zip) >"$dist/SHA256SUMS"
module=$(awk '$2 == "python.wasm" {print $1}' "$dist/SHA256SUMS")
stdlib=$(awk '$2 == "stdlib.zip" {print $1}' "$dist/SHA256SUMS")
sed -i -E "s/(ModuleSHA256 = \")[^\"]*\"/\1$module\"/; s/(StdlibSHA256 = \")[^\"]*\"/\1$stdlib\"/" \
	"$repo/internal/pywasm/interpreter.go"
cat "$dist/SHA256SUMS"
ls -l "$dist"
