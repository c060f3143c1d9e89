package llm

import (
	"context"
	"fmt"
)

// The data stage: INSERT statements run over the kept schema, foreign keys
// on; every table needs rows.

func (r *envRun) runData(ctx context.Context) error {
	stmts, err := r.runSQLStage(ctx, StageData, r.schema, "INSERT", func(db *scratch) ([]string, error) {
		counts, err := db.tableCounts()
		var probs []string
		for t, n := range counts {
			if n == 0 {
				probs = append(probs, fmt.Sprintf("table %s has no rows: every table needs sample rows", t))
			}
		}
		return probs, err
	})
	r.data = stmts
	return err
}
