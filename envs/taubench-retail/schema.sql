-- τ-bench retail: one table per collection, keyed by the record id, with the
-- whole τ-bench record as JSON text in `data` (the export view). rowid order
-- is the data files' order, which is the iteration order of τ-bench's Python
-- dicts ("first match").
--
-- `init_data` keeps the record's initial text (copied by the triggers below
-- while the data files are imported). When a tool's change brings a record
-- back to a value equal to its initial one (an address changed and changed
-- back), the tool writes the initial text back, so the exported diff, which
-- compares texts, omits the record exactly as τ-bench's diff, which compares
-- dicts, does.
CREATE TABLE users (
  id        TEXT PRIMARY KEY,
  data      TEXT NOT NULL,
  init_data TEXT
);

CREATE TABLE products (
  id        TEXT PRIMARY KEY,
  data      TEXT NOT NULL,
  init_data TEXT
);

CREATE TABLE orders (
  id        TEXT PRIMARY KEY,
  data      TEXT NOT NULL,
  init_data TEXT
);

CREATE TRIGGER users_init AFTER INSERT ON users BEGIN
  UPDATE users SET init_data = NEW.data WHERE rowid = NEW.rowid;
END;

CREATE TRIGGER products_init AFTER INSERT ON products BEGIN
  UPDATE products SET init_data = NEW.data WHERE rowid = NEW.rowid;
END;

CREATE TRIGGER orders_init AFTER INSERT ON orders BEGIN
  UPDATE orders SET init_data = NEW.data WHERE rowid = NEW.rowid;
END;
