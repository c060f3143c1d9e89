CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE repair_prices (id INTEGER PRIMARY KEY, device TEXT NOT NULL, fault TEXT NOT NULL, price REAL NOT NULL, UNIQUE (device, fault));

CREATE TABLE dropoff_slots (id TEXT PRIMARY KEY, starts_at TEXT NOT NULL UNIQUE, capacity INTEGER NOT NULL, booked INTEGER NOT NULL);

CREATE TABLE tickets (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, device TEXT NOT NULL, fault TEXT NOT NULL, quote REAL NOT NULL, quote_status TEXT NOT NULL CHECK (quote_status IN ('pending','approved','declined')), status TEXT NOT NULL CHECK (status IN ('open','in_repair','ready','collected','cancelled')), dropoff_slot_id TEXT, screen_protector INTEGER NOT NULL CHECK (screen_protector IN (0,1)), express INTEGER NOT NULL CHECK (express IN (0,1)), created_at TEXT NOT NULL, FOREIGN KEY (customer_id) REFERENCES customers(id), FOREIGN KEY (dropoff_slot_id) REFERENCES dropoff_slots(id));
