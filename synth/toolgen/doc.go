// Package toolgen derives a toolset from a database model and renders it as
// Go source for package tools, which the ordinary compiler builds (so every
// static check and sandbox rule applies to generated code).
//
// Per table: get by key; find by each natural key; list with typed filters
// (equality on enumerations and references, ranges on numbers and dates,
// substring on names), sorting and pagination; tools that follow each
// reference both ways (list_orders_of_customer, get_customer_of_order); and,
// unless read-only, create, update and delete. Writes check references and
// refuse to orphan rows; constraint failures come back as clear tool errors.
// Each view gets a read-only list tool; a table a trigger writes gets no
// write tools; BLOBs come back as sizes; find lookups fold Unicode case.
// Text from the database reaches Go only through strconv.Quote (literals)
// or dbmodel.CommentText (comments).
//
// Besides the source, Generate returns a Spec of every tool: its parameters
// (with the column each one maps to, and whether a user could say it) and
// what it returns. The graph and the task synthesizer work from the Spec.
package toolgen
