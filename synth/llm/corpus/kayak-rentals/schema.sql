CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, phone TEXT NOT NULL UNIQUE);

CREATE TABLE kayak_types (id TEXT PRIMARY KEY CHECK (id IN ('single','tandem')), fleet INTEGER NOT NULL, hourly_price REAL NOT NULL, seats INTEGER NOT NULL);

CREATE TABLE rentals (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, kayak_type TEXT NOT NULL, boats INTEGER NOT NULL CHECK (boats > 0), date TEXT NOT NULL, start_hour INTEGER NOT NULL, hours INTEGER NOT NULL CHECK (hours > 0), adults INTEGER NOT NULL, children INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL CHECK (status IN ('booked','cancelled','returned')), price REAL NOT NULL, dry_bag INTEGER NOT NULL DEFAULT 0, life_jackets TEXT NOT NULL DEFAULT '', cancel_fee REAL NOT NULL DEFAULT 0, FOREIGN KEY (customer_id) REFERENCES customers(id), FOREIGN KEY (kayak_type) REFERENCES kayak_types(id));
