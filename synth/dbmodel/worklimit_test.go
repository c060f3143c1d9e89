package dbmodel

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// endlessView is a view over a recursive CTE that never yields a row and
// never ends: the sample's LIMIT cannot stop it, only the work limit can.
const endlessView = `
CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO items VALUES (1, 'a'), (2, 'b');
CREATE VIEW forever AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT x FROM n WHERE x < 0;
`

// A query past its work limit ends reading with a *WorkLimitError that
// names the view (issue 37 finding 7); it is not skipped as a bad view.
func TestEndlessViewHitsWorkLimit(t *testing.T) {
	path := makeDB(t, endlessView)
	_, err := Open(path, Options{WorkLimit: 200_000})
	var wl *WorkLimitError
	if !errors.As(err, &wl) || wl.Limit != 200_000 {
		t.Fatalf("got %v, want a *WorkLimitError", err)
	}
	if !strings.Contains(err.Error(), "view forever") || !strings.Contains(err.Error(), "work limit") {
		t.Errorf("the error does not name the view and the cause: %v", err)
	}
}

// A view with endless rows is read from a sample: its statistics end
// under the default limit.
func TestEndlessRowsViewIsSampled(t *testing.T) {
	path := makeDB(t, `
CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO items VALUES (1, 'a');
CREATE VIEW counting AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT x, 'k' || (x % 3) AS kind FROM n;
`)
	m, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := m.View("counting")
	if v == nil || v.Rows != viewSample {
		t.Fatalf("view counting: %+v (skipped: %v)", v, m.Skipped)
	}
}

// Cancelling the context stops a query mid-step: the read ends with the
// context's error (SIGINT and SIGTERM cancel it in the CLI).
func TestCancelStopsAnEndlessQuery(t *testing.T) {
	path := makeDB(t, endlessView)
	// The context is cancelled while the endless view is being read: it
	// turns done after SQLite asked it 10,000 times once every table was
	// read (one ask per ~1000 VM steps), so well inside the view's query.
	ctx := &cancelAfter{Context: context.Background(), asks: -1}
	progress := func(done, total int) {
		if done == total {
			ctx.asks = 10_000
		}
	}
	_, err := Open(path, Options{Context: ctx, Progress: progress, WorkLimit: 1 << 62})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "view forever") {
		t.Fatalf("got %v, want context.Canceled naming the view", err)
	}
}

// cancelAfter is a context that turns done once its Err was asked asks
// times (never while asks is negative).
type cancelAfter struct {
	context.Context
	asks int
}

func (c *cancelAfter) Err() error {
	if c.asks < 0 {
		return nil
	}
	if c.asks == 0 {
		return context.Canceled
	}
	c.asks--
	return nil
}
