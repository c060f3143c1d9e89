#!/bin/sh
# Builds the second held-out set of manifest.tsv (databases of operational
# domains) into OUT/<name>/<name>.sqlite, the layout
# synth/testdata/textsql/run.sh reads. Each file is fetched at its pinned
# commit and checked against its sha256, then, by its ending:
#   .sqlite .db .gnucash  the database as is (a GnuCash book is SQLite);
#   .csv                  imported with sqlite3's .import, one table per
#                         file named after it (no types or keys);
#   .sql                  a dump of another engine (PostgreSQL, Oracle,
#                         MySQL): tosqlite.awk keeps its tables, keys and
#                         rows and the sqlite3 shell runs the result;
#   .txt                  rows for a table an earlier .sql line created,
#                         in MySQL LOAD DATA form (comma-separated, text in
#                         double quotes, an unquoted NULL is NULL).
# Lines of one database run in manifest order. Needs curl, awk and the
# sqlite3 shell; MIRROR=DIR reads DIR/<owner>+<name>/repo (a git
# directory, bare or not) instead of the network.
#
#   MIRROR=/work/.mirror sh synth/testdata/heldout2/build.sh /tmp/heldout2
set -eu
out=${1:?usage: build.sh OUT}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -v '^#' "$here/manifest.tsv" | cut -f1 | uniq | while read -r db; do
	rm -f "$out/$db/$db.sqlite"
done
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
	dbf="$out/$db/$db.sqlite"
	table=$(basename "$path" | sed 's/\.[^.]*$//')
	case "$path" in
	*.sqlite | *.db | *.gnucash) cp "$f" "$dbf" ;;
	*.csv) sqlite3 "$dbf" ".import --csv '$f' '$table'" ;;
	*.sql) awk -f "$here/tosqlite.awk" "$f" | sqlite3 -bail "$dbf" ;;
	*.txt)
		# Fewer fields than columns leaves the rest NULL (sqlite3 says so
		# once a row on stderr, which is expected here).
		sqlite3 "$dbf" ".import --csv '$f' '$table'" 2>"$tmp/import.log" || { cat "$tmp/import.log" >&2; exit 1; }
		grep -v 'filling the rest with NULL' "$tmp/import.log" >&2 || true
		sqlite3 "$dbf" "SELECT 'UPDATE \"$table\" SET \"' || name || '\" = NULL WHERE \"' || name || '\" = ''NULL'';' FROM pragma_table_info('$table')" | sqlite3 -bail "$dbf"
		;;
	*)
		echo "build.sh: $path: no rule for this kind of file" >&2
		exit 1
		;;
	esac
	rm -f "$f"
done
ls "$out"
