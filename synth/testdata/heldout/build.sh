#!/bin/sh
# Builds the held-out databases of manifest.tsv into OUT/<name>/<name>.sqlite
# (the layout synth/testdata/textsql/run.sh reads). Each file is fetched at
# its pinned commit and checked against its sha256; a .sqlite or .db file is
# the database as is, CSV files are imported with sqlite3's .import, one
# table per file named after it (no types, keys or references: CSV has
# none). Needs curl and the sqlite3 shell; MIRROR=DIR reads
# DIR/<owner>+<name>/repo (a git directory, bare or not) instead of the
# network.
#
#   sh synth/testdata/heldout/build.sh /tmp/heldout
set -eu
out=${1:?usage: build.sh OUT}
here=$(dirname "$0")
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -v '^#' "$here/manifest.tsv" | while IFS="$(printf '\t')" read -r db repo commit path licence sha bytes shape; do
	f="$tmp/$(basename "$path")"
	if [ -n "${MIRROR:-}" ]; then
		g="$MIRROR/$(echo "$repo" | tr / +)/repo"
		[ -d "$g/.git" ] && g="$g/.git" # a mirror with a work tree
		git --git-dir "$g" show "$commit:$path" >"$f"
	else
		curl -fsSL "https://raw.githubusercontent.com/$repo/$commit/$path" -o "$f"
	fi
	got=$(sha256sum "$f" | cut -d' ' -f1)
	if [ "$got" != "$sha" ]; then
		echo "build.sh: $repo $path: sha256 $got, want $sha" >&2
		exit 1
	fi
	mkdir -p "$out/$db"
	case "$path" in
	*.sqlite | *.db) cp "$f" "$out/$db/$db.sqlite" ;;
	*.csv) sqlite3 "$out/$db/$db.sqlite" ".import --csv '$f' '$(basename "$path" .csv)'" ;;
	esac
	rm -f "$f"
done
ls "$out"
