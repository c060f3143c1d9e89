// Package dbmodel reads a SQLite database (or a directory of JSON
// collections, imported first) into a model that the rest of synth works
// from: tables, primary keys (rowid tables and composite keys included),
// foreign keys (declared, and inferred from names and values), column types,
// NOT NULL, UNIQUE, CHECK, defaults, enumerations (from CHECK ... IN lists and
// from low-cardinality text columns) and natural keys (unique human-readable
// columns such as names and emails).
//
// The model is plain data: the tool generator, the graph and the task
// synthesizer read it, and the LLM pipeline may build one by hand.
package dbmodel
