package llm

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// MaxFailingFraction is AWM's rule for generated SQL: when fewer than this
// fraction of a stage's statements fail, the clean ones are kept and the
// stage passes; otherwise the errors are fed back and the stage retries.
const MaxFailingFraction = 0.10

// hostClockSQL matches SQL that reads the host's clock. Generated time must
// be fixed values relative to the environment clock, so that an episode is
// a function of its bundle, seed and calls.
var hostClockSQL = regexp.MustCompile(`(?i)\bcurrent_(timestamp|date|time)\b|'now'|"now"`)

// stmtError is a statement that failed in the scratch database.
type stmtError struct {
	Index int
	SQL   string
	Err   string
}

func (e stmtError) String() string {
	return fmt.Sprintf("statement %d (%s): %s", e.Index+1, truncate(oneLine(e.SQL), 160), e.Err)
}

// scratch is an in-memory SQLite database where generated SQL is run
// statement by statement, with foreign keys enforced so that INSERTs out of
// foreign-key order fail.
type scratch struct{ conn *sqlite3.Conn }

func newScratch() (*scratch, error) {
	conn, err := sqlite3.Open(":memory:")
	if err != nil {
		return nil, err
	}
	conn.Limit(sqlite3.LIMIT_ATTACHED, 0)
	if err := conn.Exec("PRAGMA foreign_keys = ON"); err != nil {
		conn.Close()
		return nil, err
	}
	return &scratch{conn: conn}, nil
}

func (s *scratch) Close() error { return s.conn.Close() }

// run executes each statement on its own and returns the failures. allow
// says which statement kinds the stage may issue (upper-case first words).
func (s *scratch) run(stmts []string, allow ...string) []stmtError {
	var errs []stmtError
	for i, sql := range stmts {
		if msg := s.exec(sql, allow); msg != "" {
			errs = append(errs, stmtError{Index: i, SQL: sql, Err: msg})
		}
	}
	return errs
}

func (s *scratch) exec(sql string, allow []string) string {
	trimmed := strings.TrimSpace(sql)
	if trimmed == "" {
		return "empty statement"
	}
	first := strings.ToUpper(strings.Fields(trimmed)[0])
	allowed := false
	for _, a := range allow {
		if first == a {
			allowed = true
		}
	}
	if !allowed {
		return fmt.Sprintf("%s is not allowed here (only %s)", first, strings.Join(allow, ", "))
	}
	if m := hostClockSQL.FindString(sql); m != "" {
		return fmt.Sprintf("%s reads the host clock: write a fixed time relative to the environment clock instead", m)
	}
	stmt, tail, err := s.conn.Prepare(sql)
	if err != nil {
		return err.Error()
	}
	defer stmt.Close()
	if strings.TrimSpace(strings.TrimRight(strings.TrimSpace(tail), ";")) != "" {
		return "one statement per entry"
	}
	if err := stmt.Exec(); err != nil {
		return err.Error()
	}
	return ""
}

// tablesWithoutPK lists tables that have no primary key (diffs and the
// state hash key rows by it).
func (s *scratch) tablesWithoutPK() ([]string, error) {
	stmt, _, err := s.conn.Prepare(`SELECT s.name FROM sqlite_schema AS s WHERE s.type = 'table' AND s.name NOT LIKE 'sqlite_%'
		AND NOT EXISTS (SELECT 1 FROM pragma_table_info(s.name) AS c WHERE c.pk > 0) ORDER BY s.name`)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	var out []string
	for stmt.Step() {
		out = append(out, stmt.ColumnText(0))
	}
	return out, stmt.Err()
}

// tableCounts returns each table's row count.
func (s *scratch) tableCounts() (map[string]int64, error) {
	stmt, _, err := s.conn.Prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	var names []string
	for stmt.Step() {
		names = append(names, stmt.ColumnText(0))
	}
	stmt.Close()
	out := map[string]int64{}
	for _, n := range names {
		st, _, err := s.conn.Prepare(`SELECT COUNT(*) FROM "` + strings.ReplaceAll(n, `"`, `""`) + `"`)
		if err != nil {
			return nil, err
		}
		if st.Step() {
			out[n] = st.ColumnInt64(0)
		}
		st.Close()
	}
	return out, nil
}

// sqlVerdict applies AWM's rule to a stage's statements: none failing
// passes; under MaxFailingFraction failing keeps the clean ones (kept
// receives them) and passes; more retries with the errors.
func sqlVerdict(stmts []string, errs []stmtError) (kept []string, v verdict) {
	failed := map[int]bool{}
	for _, e := range errs {
		failed[e.Index] = true
		v.Problems = append(v.Problems, e.String())
	}
	for i, s := range stmts {
		if !failed[i] {
			kept = append(kept, s)
		}
	}
	if len(stmts) == 0 {
		v.Problems = append(v.Problems, "no statements")
		return nil, v
	}
	frac := float64(len(failed)) / float64(len(stmts))
	v.Score = 1 - frac
	v.Accept = len(failed) > 0 && frac < MaxFailingFraction
	return kept, v
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
