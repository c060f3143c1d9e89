// Package emit writes an environment source directory (the format of
// docs/ENV_FORMAT.md) from an in-memory description, atomically: the files
// go to a temporary sibling directory that is renamed into place, so a
// failed or interrupted run never leaves a half-written environment.
//
// It also renders a database model as schema.sql and a database's rows as
// seed.sql (parents first, in one transaction with deferred reference
// checks; large tables sampled with their references' closure), so that an
// emitted environment rebuilds the same data. CheckSchema tries every table
// and copied object in a scratch database and keeps what SQLite accepts;
// VerifySchema refuses a schema that creates an object the source did not
// have.
package emit
