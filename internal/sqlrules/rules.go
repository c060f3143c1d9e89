package sqlrules

import (
	"errors"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// Allowed is the authorizer rule for bundle SQL: reads, and row writes on
// main; no ATTACH, PRAGMA, transactions or DDL (CREATE INDEX included); no
// CURRENT_TIME/DATE/TIMESTAMP (they read the host's clock; the episode clock
// is sdk.Now) and no loading code. The date functions stay allowed: the
// runtime gives them the episode clock for 'now' (runtime/sqlclock.go).
func Allowed(action sqlite3.AuthorizerActionCode, name3rd, name4th, schema string) bool {
	switch action {
	case sqlite3.AUTH_SELECT, sqlite3.AUTH_READ, sqlite3.AUTH_RECURSIVE:
		return true
	case sqlite3.AUTH_FUNCTION:
		switch strings.ToLower(name4th) {
		case "current_time", "current_date", "current_timestamp", "load_extension":
			return false
		}
		return true
	case sqlite3.AUTH_INSERT, sqlite3.AUTH_UPDATE, sqlite3.AUTH_DELETE:
		return schema == "main" && !strings.HasPrefix(strings.ToLower(name3rd), "sqlite_")
	}
	return false
}

// Authorizer applies Allowed to every statement a connection prepares.
func Authorizer(action sqlite3.AuthorizerActionCode, name3rd, name4th, schema, inner string) sqlite3.AuthorizerReturnCode {
	if Allowed(action, name3rd, name4th, schema) {
		return sqlite3.AUTH_OK
	}
	return sqlite3.AUTH_DENY
}

// forbiddenLeads are statements bundle SQL may never run even where the
// authorizer is not consulted (VACUUM has no authorizer code).
var forbiddenLeads = []string{"VACUUM", "ATTACH", "DETACH", "PRAGMA", "BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE"}

// ErrNotAllowed is wrapped by CheckLead's errors.
var ErrNotAllowed = errors.New("not allowed in bundle SQL")

// CheckLead refuses a statement that starts with a forbidden keyword.
func CheckLead(sql string) error {
	lead := strings.ToUpper(strings.TrimLeft(sql, " \t\r\n("))
	for _, f := range forbiddenLeads {
		if strings.HasPrefix(lead, f) {
			return &LeadError{Keyword: f}
		}
	}
	return nil
}

// LeadError is a statement refused by its first keyword.
type LeadError struct{ Keyword string }

func (e *LeadError) Error() string {
	return e.Keyword + " is not allowed in an environment's SQL (tool code, task setup, checks, export views)"
}

func (e *LeadError) Unwrap() error { return ErrNotAllowed }
