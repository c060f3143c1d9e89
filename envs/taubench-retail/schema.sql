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

-- products is never written by a tool. The triggers below keep, beside
-- each record, its name and product_id (product_names: list_all_product_types
-- reads 50 small rows instead of 50 records of 2 KB) and its variants
-- (variants: the exchange and item-modification tools read one small row per
-- item instead of the product's record).
CREATE TABLE products (
  id   TEXT PRIMARY KEY,
  data TEXT NOT NULL
);

-- products' rowid (file order), product["name"] as an SQL value (a str is
-- text; no declared type, so a number stays a number) and
-- product["product_id"] as JSON text (NULL when missing).
CREATE TABLE product_names (
  product_rowid INTEGER PRIMARY KEY,
  name,
  product_id
);

-- list_all_product_types's answer, rendered by SQLite whenever products
-- change (one row; out is NULL when a name is not printable ASCII or an id
-- not a plain string, where json_quote could write other bytes than
-- json.dumps: the tool then builds it from product_names).
CREATE TABLE product_list (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  out TEXT
);

-- products[product]["variants"][item]: the variant's JSON text ('null'
-- for a variant that is not an object); a repeated key keeps its last value,
-- as in Python.
CREATE TABLE variants (
  product TEXT NOT NULL,
  item    TEXT NOT NULL,
  data    TEXT NOT NULL,
  PRIMARY KEY (product, item)
) WITHOUT ROWID;

-- An INSERT OR REPLACE deletes the row it replaces without firing the delete
-- trigger (recursive triggers are off), so the insert trigger first drops
-- what no product owns any more.
CREATE TRIGGER products_derive_insert AFTER INSERT ON products BEGIN
  DELETE FROM product_names WHERE product_rowid NOT IN (SELECT rowid FROM products);
  DELETE FROM variants WHERE product = NEW.id OR product NOT IN (SELECT id FROM products);
  INSERT INTO product_names VALUES (NEW.rowid, NEW.data ->> '$.name', NEW.data -> '$.product_id');
  INSERT OR REPLACE INTO variants (product, item, data)
    SELECT NEW.id, key, CASE WHEN type = 'object' THEN value ELSE 'null' END
    FROM json_each(NEW.data, '$.variants') WHERE json_type(NEW.data, '$.variants') = 'object';
  INSERT OR REPLACE INTO product_list (one, out) SELECT 1, CASE WHEN EXISTS (SELECT 1 FROM product_names
      WHERE NOT (typeof(name) = 'text' AND name NOT GLOB '*[^ -~]*'
        AND product_id GLOB '"*"' AND product_id NOT GLOB '*[^ -~]*' AND product_id NOT GLOB '*\*'))
    THEN NULL
    ELSE '{' || coalesce((SELECT group_concat(json_quote(name) || ': ' || product_id, ', ' ORDER BY name)
      FROM product_names WHERE product_rowid IN (SELECT max(product_rowid) FROM product_names GROUP BY name)), '') || '}'
    END;
END;

CREATE TRIGGER products_derive_update AFTER UPDATE ON products BEGIN
  DELETE FROM product_names WHERE product_rowid = OLD.rowid;
  INSERT INTO product_names VALUES (NEW.rowid, NEW.data ->> '$.name', NEW.data -> '$.product_id');
  DELETE FROM variants WHERE product = OLD.id;
  INSERT OR REPLACE INTO variants (product, item, data)
    SELECT NEW.id, key, CASE WHEN type = 'object' THEN value ELSE 'null' END
    FROM json_each(NEW.data, '$.variants') WHERE json_type(NEW.data, '$.variants') = 'object';
  INSERT OR REPLACE INTO product_list (one, out) SELECT 1, CASE WHEN EXISTS (SELECT 1 FROM product_names
      WHERE NOT (typeof(name) = 'text' AND name NOT GLOB '*[^ -~]*'
        AND product_id GLOB '"*"' AND product_id NOT GLOB '*[^ -~]*' AND product_id NOT GLOB '*\*'))
    THEN NULL
    ELSE '{' || coalesce((SELECT group_concat(json_quote(name) || ': ' || product_id, ', ' ORDER BY name)
      FROM product_names WHERE product_rowid IN (SELECT max(product_rowid) FROM product_names GROUP BY name)), '') || '}'
    END;
END;

CREATE TRIGGER products_derive_delete AFTER DELETE ON products BEGIN
  DELETE FROM product_names WHERE product_rowid = OLD.rowid;
  DELETE FROM variants WHERE product = OLD.id;
  INSERT OR REPLACE INTO product_list (one, out) SELECT 1, CASE WHEN EXISTS (SELECT 1 FROM product_names
      WHERE NOT (typeof(name) = 'text' AND name NOT GLOB '*[^ -~]*'
        AND product_id GLOB '"*"' AND product_id NOT GLOB '*[^ -~]*' AND product_id NOT GLOB '*\*'))
    THEN NULL
    ELSE '{' || coalesce((SELECT group_concat(json_quote(name) || ': ' || product_id, ', ' ORDER BY name)
      FROM product_names WHERE product_rowid IN (SELECT max(product_rowid) FROM product_names GROUP BY name)), '') || '}'
    END;
END;

CREATE TABLE orders (
  id   TEXT PRIMARY KEY,
  data TEXT NOT NULL
);
