package llm

import (
	"context"
	"fmt"
)

// The schema stage: CREATE statements run in a scratch database; a table
// needs a primary key.

func (r *envRun) runSchema(ctx context.Context) error {
	var out struct {
		Statements []string `json:"statements"`
	}
	err := runStage(ctx, r, stageCall{stage: StageSchema, key: r.sc.Name, data: r.base()}, &out, func(_ context.Context, o *struct {
		Statements []string `json:"statements"`
	}) verdict {
		db, err := newScratch()
		if err != nil {
			return verdict{Fatal: err}
		}
		defer db.Close()
		errs := db.run(o.Statements, "CREATE")
		kept, v := sqlVerdict(o.Statements, errs)
		noPK, err := db.tablesWithoutPK()
		if err != nil {
			return verdict{Fatal: err}
		}
		for _, t := range noPK {
			v.Problems = append(v.Problems, fmt.Sprintf("table %s has no PRIMARY KEY (every table needs one: diffs key rows by it)", t))
			v.Accept = false
		}
		if v.Accept {
			v.Dropped = droppedStatements(StageSchema, errs)
			o.Statements = kept
		}
		return v
	})
	r.schema = out.Statements
	return err
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
