CREATE TABLE owners (membership_no TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL);

CREATE TABLE boats (id TEXT PRIMARY KEY, membership_no TEXT NOT NULL, name TEXT NOT NULL, length_m REAL NOT NULL CHECK (length_m > 0), FOREIGN KEY (membership_no) REFERENCES owners(membership_no));

CREATE TABLE pontoons (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE);

CREATE TABLE berths (id TEXT PRIMARY KEY, pontoon_id TEXT NOT NULL, max_length_m REAL NOT NULL CHECK (max_length_m > 0), nightly_rate REAL NOT NULL CHECK (nightly_rate > 0), FOREIGN KEY (pontoon_id) REFERENCES pontoons(id));

CREATE TABLE bookings (id TEXT PRIMARY KEY, boat_id TEXT NOT NULL, berth_id TEXT NOT NULL, arrival TEXT NOT NULL, departure TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('active', 'cancelled')), berth_cost REAL NOT NULL, refund REAL NOT NULL DEFAULT 0, created_at TEXT NOT NULL, FOREIGN KEY (boat_id) REFERENCES boats(id), FOREIGN KEY (berth_id) REFERENCES berths(id));

CREATE TABLE service_orders (id INTEGER PRIMARY KEY, booking_id TEXT NOT NULL, service TEXT NOT NULL CHECK (service IN ('fuel', 'shore_power')), quantity REAL NOT NULL CHECK (quantity > 0), amount REAL NOT NULL, ordered_at TEXT NOT NULL, FOREIGN KEY (booking_id) REFERENCES bookings(id));

CREATE INDEX bookings_by_berth ON bookings(berth_id);
