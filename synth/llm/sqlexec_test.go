package llm

import (
	"strings"
	"testing"
)

func TestScratchRunsStatementByStatement(t *testing.T) {
	db, err := newScratch()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	errs := db.run([]string{
		"CREATE TABLE a (id TEXT PRIMARY KEY)",
		"CREATE TABLE b (id INTEGER PRIMARY KEY, a_id TEXT REFERENCES a(id), at TEXT DEFAULT CURRENT_TIMESTAMP)",
		"CREATE TABLE c (x TEXT)",
		"DROP TABLE a",
		"CREATE TABLE d (id TEXT PRIMARY KEY); CREATE TABLE e (id TEXT PRIMARY KEY)",
	}, "CREATE")
	if len(errs) != 3 || errs[0].Index != 1 || !strings.Contains(errs[0].Err, "host clock") ||
		errs[1].Index != 3 || !strings.Contains(errs[1].Err, "not allowed") || errs[2].Index != 4 {
		t.Fatalf("errors: %v", errs)
	}
	noPK, err := db.tablesWithoutPK()
	if err != nil || len(noPK) != 1 || noPK[0] != "c" {
		t.Errorf("tables without a primary key: %v %v", noPK, err)
	}
	db.run([]string{"CREATE TABLE f (id TEXT PRIMARY KEY, a_id TEXT NOT NULL REFERENCES a(id))"}, "CREATE")
	errs = db.run([]string{"INSERT INTO f VALUES ('f1', 'a1')", "INSERT INTO a VALUES ('a1')", "INSERT INTO f VALUES ('f1', 'a1')",
		"INSERT INTO a VALUES (datetime('now'))"}, "INSERT")
	if len(errs) != 2 || !strings.Contains(errs[0].Err, "FOREIGN KEY") || !strings.Contains(errs[1].Err, "host clock") {
		t.Errorf("insert errors: %v", errs)
	}
}

func TestSQLVerdictKeepsCleanStatementsUnderTenPercent(t *testing.T) {
	stmts := make([]string, 11)
	for i := range stmts {
		stmts[i] = "INSERT ..."
	}
	kept, v := sqlVerdict(stmts, []stmtError{{Index: 4, SQL: stmts[4], Err: "boom"}})
	if !v.Accept || len(kept) != 10 || len(v.Problems) != 1 {
		t.Errorf("1 of 11 failing: accept %v, kept %d", v.Accept, len(kept))
	}
	_, v = sqlVerdict(stmts[:10], []stmtError{{Index: 4, SQL: stmts[4], Err: "boom"}})
	if v.Accept {
		t.Error("1 of 10 failing (10%) must retry, not keep")
	}
	_, v = sqlVerdict(stmts, nil)
	if v.Accept || len(v.Problems) != 0 || v.Score != 1 {
		t.Errorf("no failures: %+v", v)
	}
}
