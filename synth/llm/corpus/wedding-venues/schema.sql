CREATE TABLE couples (id TEXT PRIMARY KEY, names TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE venues (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, capacity INTEGER NOT NULL, base_price REAL NOT NULL, per_guest REAL NOT NULL);

CREATE TABLE packages (code TEXT PRIMARY KEY CHECK (code IN ('catering','flowers','band')), name TEXT NOT NULL, price REAL NOT NULL, per_guest INTEGER NOT NULL CHECK (per_guest IN (0,1)));

CREATE TABLE bookings (id TEXT PRIMARY KEY, couple_id TEXT NOT NULL, venue_id TEXT NOT NULL, wedding_date TEXT NOT NULL, guests INTEGER NOT NULL CHECK (guests > 0), status TEXT NOT NULL CHECK (status IN ('booked','cancelled')), fees REAL NOT NULL DEFAULT 0, deposit REAL NOT NULL, paid REAL NOT NULL DEFAULT 0, refunded REAL NOT NULL DEFAULT 0, created_at TEXT NOT NULL, FOREIGN KEY (couple_id) REFERENCES couples(id), FOREIGN KEY (venue_id) REFERENCES venues(id));

CREATE TABLE booking_packages (booking_id TEXT NOT NULL, package_code TEXT NOT NULL, PRIMARY KEY (booking_id, package_code), FOREIGN KEY (booking_id) REFERENCES bookings(id), FOREIGN KEY (package_code) REFERENCES packages(code));

CREATE INDEX bookings_by_venue_date ON bookings(venue_id, wedding_date);
