package tasks

import (
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// Identifiers are the ways the tools offer to find a row by what a person
// says, the ones the tasks' ground truth starts from (entry): a find by a
// natural key, a get by a key people know, and a table's list filtered by
// a combination a person says (first and last name; name and city). Each
// is "tool (parameters)", in the toolset's order. The policy's
// identification rule names these, so that an agent that follows it may
// take the path the ground truth takes (issue 34: a rule that named only
// the finds by email failed the name lookups of the gold paths).
func Identifiers(spec *toolgen.Spec) []string {
	var out []string
	for _, tl := range spec.Tools {
		t := spec.Model.Table(tl.Table)
		if t == nil || t.Rows == 0 {
			continue
		}
		switch {
		case tl.Kind == toolgen.Find && len(tl.Params) == 1,
			tl.Kind == toolgen.Get && len(tl.Params) == 1 && slices.Contains(t.NaturalKeys, tl.Params[0].Column):
			out = append(out, tl.Name+" ("+tl.Params[0].Name+")")
		case tl.Kind == toolgen.List:
			combo := nameCombo(t)
			if combo == nil {
				continue
			}
			var names []string
			for _, col := range combo {
				args := comboArgs(tl, col, "")
				for k := range args {
					names = append(names, k)
				}
				if args == nil {
					names = nil
					break
				}
			}
			if names != nil {
				slices.Sort(names)
				out = append(out, tl.Name+" ("+strings.Join(names, ", ")+")")
			}
		}
	}
	return out
}
