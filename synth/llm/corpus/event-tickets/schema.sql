CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE events (id TEXT PRIMARY KEY, title TEXT NOT NULL, venue TEXT NOT NULL, starts_at TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('scheduled','cancelled','rescheduled')), per_customer_limit INTEGER NOT NULL CHECK (per_customer_limit > 0));

CREATE TABLE sections (id TEXT PRIMARY KEY, event_id TEXT NOT NULL REFERENCES events(id), name TEXT NOT NULL, price REAL NOT NULL CHECK (price > 0), seats_left INTEGER NOT NULL CHECK (seats_left >= 0), UNIQUE (event_id, name));

CREATE TABLE tickets (id INTEGER PRIMARY KEY, section_id TEXT NOT NULL REFERENCES sections(id), holder_id TEXT NOT NULL REFERENCES customers(id), price_paid REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('valid','refunded')), bought_at TEXT NOT NULL, refunded_at TEXT);

CREATE INDEX tickets_holder ON tickets(holder_id);
