package llm

import (
	"context"
	"fmt"
)

// The data stage: INSERT statements run over the kept schema; every table
// needs rows.

func (r *envRun) runData(ctx context.Context) error {
	var out struct {
		Statements []string `json:"statements"`
	}
	err := runStage(ctx, r, stageCall{stage: StageData, key: r.sc.Name, data: r.base()}, &out, func(_ context.Context, o *struct {
		Statements []string `json:"statements"`
	}) verdict {
		db, err := newScratch()
		if err != nil {
			return verdict{Fatal: err}
		}
		defer db.Close()
		if errs := db.run(r.schema, "CREATE"); len(errs) > 0 {
			return verdict{Fatal: fmt.Errorf("kept schema fails: %s", errs[0])}
		}
		errs := db.run(o.Statements, "INSERT")
		kept, v := sqlVerdict(o.Statements, errs)
		counts, err := db.tableCounts()
		if err != nil {
			return verdict{Fatal: err}
		}
		for t, n := range counts {
			if n == 0 {
				v.Problems = append(v.Problems, fmt.Sprintf("table %s has no rows: every table needs sample rows", t))
				v.Accept = false
			}
		}
		if v.Accept {
			v.Dropped = droppedStatements(StageData, errs)
			o.Statements = kept
		}
		return v
	})
	r.data = out.Statements
	return err
}
