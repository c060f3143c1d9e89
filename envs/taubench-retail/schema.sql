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

-- products is never written by a tool. list_all_product_types reads the
-- index products_names (name and product_id, derived from the record) and
-- the exchange and item-modification tools read one variant's row in
-- variants (filled by the triggers below) instead of the product's record.
CREATE TABLE products (
  id         TEXT PRIMARY KEY,
  data       TEXT NOT NULL,
  name       AS (data ->> '$.name'),     -- the SQL value (a str is text)
  product_id AS (data -> '$.product_id') -- the JSON text
);

CREATE INDEX products_names ON products (name, product_id);

-- products[product]["variants"][item]: the variant's JSON text ('null'
-- for a variant that is not an object); a repeated key keeps its last value,
-- as in Python.
CREATE TABLE variants (
  product TEXT NOT NULL,
  item    TEXT NOT NULL,
  data    TEXT NOT NULL,
  PRIMARY KEY (product, item)
) WITHOUT ROWID;

CREATE TRIGGER products_variants_insert AFTER INSERT ON products BEGIN
  INSERT OR REPLACE INTO variants (product, item, data)
    SELECT NEW.id, key, CASE WHEN type = 'object' THEN value ELSE 'null' END
    FROM json_each(NEW.data, '$.variants') WHERE json_type(NEW.data, '$.variants') = 'object';
END;

CREATE TRIGGER products_variants_update AFTER UPDATE ON products BEGIN
  DELETE FROM variants WHERE product = OLD.id;
  INSERT OR REPLACE INTO variants (product, item, data)
    SELECT NEW.id, key, CASE WHEN type = 'object' THEN value ELSE 'null' END
    FROM json_each(NEW.data, '$.variants') WHERE json_type(NEW.data, '$.variants') = 'object';
END;

CREATE TRIGGER products_variants_delete AFTER DELETE ON products BEGIN
  DELETE FROM variants WHERE product = OLD.id;
END;

CREATE TABLE orders (
  id   TEXT PRIMARY KEY,
  data TEXT NOT NULL
);
