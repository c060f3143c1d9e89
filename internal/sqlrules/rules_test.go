package sqlrules

import (
	"testing"

	"github.com/ncruces/go-sqlite3"
)

func TestRules(t *testing.T) {
	conn, err := sqlite3.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Exec("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)"); err != nil {
		t.Fatal(err)
	}
	conn.SetAuthorizer(Authorizer)
	for sql, ok := range map[string]bool{
		"INSERT INTO t VALUES (1, 'a')":              true,
		"UPDATE t SET v = 'b'":                       true,
		"SELECT v FROM t WHERE k = 1":                true,
		"DELETE FROM t":                              true,
		"CREATE INDEX i ON t (v)":                    false,
		"CREATE TABLE u (x)":                         false,
		"SELECT CURRENT_TIMESTAMP":                   false,
		"INSERT INTO t VALUES (2, CURRENT_DATE)":     false,
		"DROP TABLE t":                               false,
		"INSERT INTO sqlite_sequence VALUES ('t',1)": false,
	} {
		stmt, _, err := conn.Prepare(sql)
		if stmt != nil {
			stmt.Close()
		}
		if (err == nil) != ok {
			t.Errorf("%s: allowed %v, want %v (%v)", sql, err == nil, ok, err)
		}
	}
	for sql, ok := range map[string]bool{"VACUUM": false, " (PRAGMA x": false, "begin": false, "SELECT 1": true} {
		if (CheckLead(sql) == nil) != ok {
			t.Errorf("CheckLead(%q) = %v", sql, CheckLead(sql))
		}
	}
}
