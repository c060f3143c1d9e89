package llm

import (
	"context"
	"fmt"
)

// The schema stage: CREATE statements run in a scratch database; a table
// needs a primary key.

func (r *envRun) runSchema(ctx context.Context) error {
	stmts, err := r.runSQLStage(ctx, StageSchema, nil, "CREATE", func(db *scratch) ([]string, error) {
		noPK, err := db.tablesWithoutPK()
		var probs []string
		for _, t := range noPK {
			probs = append(probs, fmt.Sprintf("table %s has no PRIMARY KEY (every table needs one: diffs key rows by it)", t))
		}
		return probs, err
	})
	r.schema = stmts
	return err
}

// sqlOut is the answer of a SQL stage.
type sqlOut struct {
	Statements []string `json:"statements"`
}

// runSQLStage runs a stage whose answer is SQL statements of one kind
// (verb): each alone in a scratch database after prelude, then more for
// the stage's own problems. Under AWM's threshold of failing statements the
// clean ones are kept and the rest reported dropped.
func (r *envRun) runSQLStage(ctx context.Context, stage string, prelude []string, verb string, more func(*scratch) ([]string, error)) ([]string, error) {
	var out sqlOut
	err := runStage(ctx, r, stageCall{stage: stage, key: r.sc.Name, data: r.base()}, &out, func(_ context.Context, o *sqlOut) verdict {
		db, err := newScratch()
		if err != nil {
			return verdict{Fatal: err}
		}
		defer db.Close()
		if errs := db.run(prelude, "CREATE"); len(errs) > 0 {
			return verdict{Fatal: fmt.Errorf("kept schema fails: %s", errs[0])}
		}
		errs := db.run(o.Statements, verb)
		kept, v := sqlVerdict(o.Statements, errs)
		probs, err := more(db)
		if err != nil {
			return verdict{Fatal: err}
		}
		if len(probs) > 0 {
			v.Problems, v.Accept = append(v.Problems, probs...), false
		}
		if v.Accept {
			v.Dropped = droppedStatements(stage, errs)
			o.Statements = kept
		}
		return v
	})
	return out.Statements, err
}

// droppedStatements are the failing statements an accepted SQL stage
// leaves out.
func droppedStatements(stage string, errs []stmtError) []Dropped {
	var out []Dropped
	for _, e := range errs {
		out = append(out, Dropped{What: stage + " " + e.String(), Reason: fmt.Sprintf("under %.0f%% of the stage's statements failed: the clean ones are kept (AWM)", 100*MaxFailingFraction)})
	}
	return out
}
