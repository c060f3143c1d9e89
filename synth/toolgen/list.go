package toolgen

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

func pageParams() []Param {
	ps := []Param{
		{Name: "limit", Type: "integer", Op: OpLimit, External: true, Doc: "At most this many rows (1 to 100, default 20).", goName: "Limit", goType: "int64"},
		{Name: "offset", Type: "integer", Op: OpOffset, External: true, Doc: "Skip this many rows first (default 0).", goName: "Offset", goType: "int64"},
	}
	return ps
}

func dateLike(name string) bool {
	l := strings.ToLower(name)
	return strings.Contains(l, "date") || strings.HasSuffix(l, "_at") || strings.Contains(l, "time") ||
		strings.HasSuffix(l, "_on") || strings.Contains(l, "day") || strings.Contains(l, "born")
}

func (g *gen) listTool(t *dbmodel.Table) *Tool {
	n := g.names[t.Name]
	l := g.newTool("list_"+n.id, List, t, fmt.Sprintf("Lists %s matching every filter given, sorted and paginated. Returns {items, total, offset}.", plainWords(n.id)))
	l.Many = true
	var filters []Param
	var sortable []string
	for _, c := range t.Columns {
		if c.Kind == dbmodel.Blob {
			continue
		}
		js := n.cols[c.Name]
		fk := t.ForeignKeyOf(c.Name)
		switch {
		case t.IsKey(c.Name) && len(t.PrimaryKey) == 1:
			sortable = append(sortable, c.Name)
		case c.Enum != nil || c.Bool || fk != nil || g.isGroup(t, c.Name):
			// (A group, figures.go: the rows a person selects by its value.)
			filters = append(filters, g.param(t, c, OpEq, js, false))
		case c.Kind == dbmodel.Integer || c.Kind == dbmodel.Real || (c.Kind == dbmodel.Text && dateLike(c.Name)):
			filters = append(filters, g.param(t, c, OpMin, "min_"+js, false), g.param(t, c, OpMax, "max_"+js, false))
			sortable = append(sortable, c.Name)
		case c.Kind == dbmodel.Text && c.Name == t.Label || t.IsNatural(c.Name) || nameish(c.Name):
			filters = append(filters, g.param(t, c, OpContains, js+"_contains", false))
			sortable = append(sortable, c.Name)
		case c.Kind == dbmodel.Text && t.IsKey(c.Name):
			filters = append(filters, g.param(t, c, OpEq, js, false))
		}
	}
	if len(filters) > g.opts.MaxFilters {
		filters = filters[:g.opts.MaxFilters]
	}
	l.Params = filters
	if len(sortable) > 0 {
		var enum []string
		for _, c := range sortable {
			enum = append(enum, n.cols[c])
		}
		sort.Strings(enum)
		l.Params = append(l.Params,
			Param{Name: "sort_by", Type: "string", Op: OpSort, Enum: enum, External: true, Doc: "Sort by this field (default: the key).", goName: "SortBy", goType: "string"},
			Param{Name: "descending", Type: "boolean", Op: OpDesc, External: true, Doc: "Sort in descending order.", goName: "Descending", goType: "bool"})
	}
	l.Params = append(l.Params, pageParams()...)
	return l
}

func nameish(col string) bool {
	l := strings.ToLower(col)
	for _, s := range []string{"name", "title", "email", "city", "country", "label", "brand", "category", "tag"} {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}
