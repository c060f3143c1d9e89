package dbmodel

import "testing"

// TestSQLTextIsData: what may be written back from a database's own text.
func TestSQLTextIsData(t *testing.T) {
	for in, want := range map[string]bool{"": true, "TEXT": true, "VARCHAR(40)": true, "DECIMAL(10, 2)": true, "UNSIGNED BIG INT": true,
		"NVARCHAR (20)": true, "TEXT); DROP TABLE x": false, "TEXT -- x": false, "INT(1)(2)": false, "'TEXT'": false} {
		if got := ValidType(in); got != want {
			t.Errorf("ValidType(%q) = %v", in, got)
		}
	}
	for in, want := range map[string]string{"'a;b'": "'a;b'", "0": "0", "-1.5e3": "-1.5e3", "NULL": "NULL", "current_timestamp": "current_timestamp",
		"(1 + 2)": "(1 + 2)", "x'00ff'": "x'00ff'", "abc": "(abc)", "1 /* c */": "1", "(1\n)": "(1\n)", "'it''s'": "'it''s'",
		"1); DROP TABLE t; --": "", "(1": "", "1)": "", "'open": "", "/* unclosed": "",
		`""`: "''", `"none"`: "'none'", `"it's"`: "'it''s'", `"a""b"`: `'a"b'`, `"a" || "b"`: `("a" || "b")`} {
		got, ok := CleanDefault(in)
		if ok != (want != "") || got != want {
			t.Errorf("CleanDefault(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if got := CommentText("a\nfunc P() {}\r\u2028//\x00b"); got != "a func P() {}  // b" {
		t.Errorf("CommentText: %q", got)
	}
	if got := checkExprs(`CREATE TABLE t (a TEXT /* CHECK (a <> 'x') */, "CHECK (1)" INT, b TEXT CHECK (b <> ')' -- )
), [c)] INT CHECK ([c)] > 0))`); len(got) != 2 || got[0] != "b <> ')'" || got[1] != "[c)] > 0" {
		t.Errorf("checkExprs: %q", got)
	}
}
