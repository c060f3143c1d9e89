package synth

import (
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/tasks"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// scopeOf is what the served person may change in a domain environment:
// the design's scope where its answer gives one, else the schema's
// (tasks.DeriveScope: the person table, the rows that are theirs through
// references, the rows their open actions add). The CRUD toolset has no
// scope: every table's tools, as before.
func scopeOf(opts Options, m *dbmodel.Model) *toolgen.Scope {
	if opts.Toolset != toolgen.ToolsetDomain || opts.ReadOnly {
		return nil
	}
	if opts.plan != nil && opts.plan.Scope != nil {
		return opts.plan.Scope
	}
	return tasks.DeriveScope(m, opts.opens)
}
