-- τ-bench retail: one table per collection, keyed by the record id, with the
-- whole τ-bench record in `data` as the text Python's json.dumps writes (the
-- data files are json.dumps output and the tools write json.dumps text
-- back), so a read tool returns `data` as is. rowid order is the data
-- files' order, which is the iteration order of τ-bench's Python dicts
-- ("first match").
--
-- The searches read a few rows by index instead of scanning every record:
-- the generated columns below are derived from `data` (kept in step by
-- SQLite on every write) and indexed. A column without a declared type has
-- no affinity, so a JSON number stays a number and never equals a text
-- argument, as in Python.
CREATE TABLE users (
  id        TEXT PRIMARY KEY,
  data      TEXT NOT NULL,
  -- the email lowered where SQLite's lower() is Python's str.lower() (an
  -- ASCII string); NULL otherwise, and the tool checks those rows itself
  email_key AS (CASE WHEN json_type(data, '$.email') = 'text'
                      AND NOT (data ->> '$.email') GLOB '*[^ -~]*'
                     THEN lower(data ->> '$.email') END),
  zip       AS (data ->> '$.address.zip')
);

CREATE INDEX users_email ON users (email_key);
CREATE INDEX users_zip ON users (zip);

CREATE TABLE products (
  id   TEXT PRIMARY KEY,
  data TEXT NOT NULL
);

CREATE TABLE orders (
  id   TEXT PRIMARY KEY,
  data TEXT NOT NULL
);
