package runtime

import "testing"

// Issue 13 item 9: the state hash is injective. Values that differ only in
// invalid UTF-8 bytes (writable through tool code) hash apart and show in
// the diff; composite keys containing the old separator, or NULL, do not
// collide.
func TestStateHashHasNoCollisions(t *testing.T) {
	e := loadEnv(t, "edge")
	hashes := map[string]string{}
	for _, c := range []struct{ name, sql string }{
		{"61FF", "UPDATE nc SET v = CAST(X'61FF' AS TEXT)"},
		{"61FE", "UPDATE nc SET v = CAST(X'61FE' AS TEXT)"},
		{"61EFBFBD", "UPDATE nc SET v = CAST(X'61EFBFBD' AS TEXT)"},
		{"a|b,c", "INSERT INTO ck VALUES ('a|b', 'c', 1)"},
		{"a,b|c", "INSERT INTO ck VALUES ('a', 'b|c', 1)"},
		{"null,x", "INSERT INTO ck VALUES (NULL, 'x', 1)"},
		{"null,y", "INSERT INTO ck VALUES (NULL, 'y', 1)"},
		{"'',x", "INSERT INTO ck VALUES ('', 'x', 1)"},
	} {
		ep := newEpisode(t, e, "", 1)
		if r := execSQL(t, ep, c.sql); r.IsError {
			t.Fatalf("%s: %s", c.sql, r.Content)
		}
		d, h, err := ep.DiffAndHash()
		if err != nil {
			t.Fatal(err)
		}
		if len(d) == 0 {
			t.Errorf("%s: no change in the diff", c.name)
		}
		if other, dup := hashes[h]; dup {
			t.Errorf("%s and %s hash alike (%s)", c.name, other, h)
		}
		hashes[h] = c.name
	}
}

// Two rows never share a diff key (one would hide the other).
func TestCompositeKeysStayApart(t *testing.T) {
	e := loadEnv(t, "edge")
	ep := newEpisode(t, e, "", 1)
	if r := execSQL(t, ep, "INSERT INTO ck VALUES ('a|b', 'c', 1), ('a', 'b|c', 2), (NULL, 'x', 3), (NULL, 'y', 4), ('', 'x', 5)"); r.IsError {
		t.Fatal(r.Content)
	}
	d, err := ep.Diff()
	if err != nil {
		t.Fatal(err)
	}
	if len(d["ck"]) != 5 {
		t.Fatalf("5 rows inserted, %d keys in the diff: %v", len(d["ck"]), d["ck"])
	}
}
