CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, area TEXT NOT NULL, credit REAL NOT NULL DEFAULT 0);

CREATE TABLE services (code TEXT PRIMARY KEY CHECK (code IN ('wash_fold','dry_clean')), name TEXT NOT NULL, unit TEXT NOT NULL CHECK (unit IN ('kg','item')), price REAL NOT NULL);

CREATE TABLE windows (id TEXT PRIMARY KEY, area TEXT NOT NULL, starts_at TEXT NOT NULL, ends_at TEXT NOT NULL, capacity INTEGER NOT NULL CHECK (capacity >= 0));

CREATE TABLE orders (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, service TEXT NOT NULL, window_id TEXT NOT NULL, bags INTEGER NOT NULL DEFAULT 0, items INTEGER NOT NULL DEFAULT 0, weight_kg REAL, express INTEGER NOT NULL DEFAULT 0 CHECK (express IN (0,1)), status TEXT NOT NULL CHECK (status IN ('scheduled','picked_up','delivered','cancelled')), price REAL NOT NULL DEFAULT 0, paid REAL NOT NULL DEFAULT 0, return_date TEXT NOT NULL, delivered_on TEXT, created_at TEXT NOT NULL, FOREIGN KEY (customer_id) REFERENCES customers(id), FOREIGN KEY (service) REFERENCES services(code), FOREIGN KEY (window_id) REFERENCES windows(id));

CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id TEXT NOT NULL, name TEXT NOT NULL, value REAL NOT NULL, FOREIGN KEY (order_id) REFERENCES orders(id));

CREATE TABLE item_issues (id INTEGER PRIMARY KEY, order_id TEXT NOT NULL, item_id INTEGER NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('missing','damaged')), credit REAL NOT NULL, reported_at TEXT NOT NULL, FOREIGN KEY (order_id) REFERENCES orders(id), FOREIGN KEY (item_id) REFERENCES order_items(id));
