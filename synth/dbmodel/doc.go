// Package dbmodel reads a SQLite database (or a directory of JSON
// collections, imported first) into a model that the rest of synth works
// from: tables, primary keys (rowid tables and composite keys included),
// foreign keys (declared, and inferred from names and values), column types,
// NOT NULL, UNIQUE, CHECK, defaults, generated columns, enumerations (from
// CHECK ... IN lists and from closed sets of codes) and natural keys (unique
// human-readable columns such as names and emails, and numbers users quote),
// and its views.
//
// What a database does not declare is recovered where names and data
// together make it certain (recover.go): a key for a table without one, a
// reference named for its parent whose every value is a key there. What no
// person says or sets is marked from the data's shape (opaque.go): GUIDs,
// hashes, tokens, long floats, and columns computed from others of the
// row; so is every column a reference points to (ReferencedBy). A table
// that no single column names may get two that do together (combo.go).
//
// Everything the database says about itself is data: declared types,
// DEFAULTs and CHECKs are kept only when they are one clean expression;
// references the data breaks or that point nowhere are dropped. What is left
// out is listed in Model.Skipped, with the reason.
//
// The model is plain data: the tool generator, the graph and the task
// synthesizer read it, and the LLM pipeline may build one by hand.
package dbmodel
