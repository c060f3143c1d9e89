package tasks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// inBand: v for col keeps a range the row holds in a pair of columns (a
// job's min_salary and max_salary): a new minimum at most the maximum, a
// new maximum at least the minimum. True when col has no pair.
func inBand(t *dbmodel.Table, row map[string]any, col string, v any) bool {
	w := words(col)
	var other string
	var isMin bool
	switch {
	case strings.Contains(" "+w+" ", " min "):
		other, isMin = strings.Replace(" "+w+" ", " min ", " max ", 1), true
	case strings.Contains(" "+w+" ", " max "):
		other = strings.Replace(" "+w+" ", " max ", " min ", 1)
	default:
		return true
	}
	other = strings.TrimSpace(other)
	for _, c := range t.Columns {
		if words(c.Name) != other {
			continue
		}
		a, err1 := strconv.ParseFloat(fmt.Sprint(sqlValue(v)), 64)
		b, err2 := strconv.ParseFloat(fmt.Sprint(sqlValue(row[c.Name])), 64)
		if err1 != nil || err2 != nil {
			return true
		}
		if isMin {
			return a <= b
		}
		return a >= b
	}
	return true
}
