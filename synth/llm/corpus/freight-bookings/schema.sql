CREATE TABLE customers (code TEXT PRIMARY KEY, name TEXT NOT NULL, contact_email TEXT NOT NULL);

CREATE TABLE ports (code TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE);

CREATE TABLE voyages (id TEXT PRIMARY KEY, vessel TEXT NOT NULL, origin_port TEXT NOT NULL, destination_port TEXT NOT NULL, departs_on TEXT NOT NULL, cutoff_on TEXT NOT NULL, capacity_teu INTEGER NOT NULL CHECK (capacity_teu > 0), rate_per_teu REAL NOT NULL CHECK (rate_per_teu > 0), FOREIGN KEY (origin_port) REFERENCES ports(code), FOREIGN KEY (destination_port) REFERENCES ports(code));

CREATE TABLE bookings (id TEXT PRIMARY KEY, customer_code TEXT NOT NULL, voyage_id TEXT NOT NULL, containers_20 INTEGER NOT NULL CHECK (containers_20 >= 0), containers_40 INTEGER NOT NULL CHECK (containers_40 >= 0), status TEXT NOT NULL CHECK (status IN ('confirmed', 'cancelled')), total_price REAL NOT NULL, cancellation_fee REAL NOT NULL DEFAULT 0, created_at TEXT NOT NULL, cancelled_at TEXT, FOREIGN KEY (customer_code) REFERENCES customers(code), FOREIGN KEY (voyage_id) REFERENCES voyages(id));

CREATE INDEX bookings_by_customer ON bookings(customer_code);

CREATE INDEX bookings_by_voyage ON bookings(voyage_id);
