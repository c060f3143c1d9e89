// Package graph builds the tool dependency graph of a generated toolset (as
// in Agent-World and EnvFactory): an edge runs from an output field of one
// tool to an input parameter of another that can consume it. Key and
// reference matches are strong edges (the output is the very id the
// parameter asks for); equal names and types are weak; a tool whose
// required parameters are all external is independent (an entry point: a
// user can supply everything it needs). Each parameter is classed external
// (a user could say it) or internal (an id the agent must look up).
//
// The graph prints as JSON and as Graphviz DOT.
package graph
