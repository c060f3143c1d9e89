CREATE TABLE guests (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE hotels (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, city TEXT NOT NULL, breakfast_price REAL NOT NULL CHECK (breakfast_price >= 0));

CREATE TABLE rooms (id TEXT PRIMARY KEY, hotel_id TEXT NOT NULL REFERENCES hotels(id), number TEXT NOT NULL, type TEXT NOT NULL CHECK (type IN ('single','double','suite')), nightly_rate REAL NOT NULL CHECK (nightly_rate > 0), UNIQUE (hotel_id, number));

CREATE TABLE bookings (id INTEGER PRIMARY KEY, guest_id TEXT NOT NULL REFERENCES guests(id), room_id TEXT NOT NULL REFERENCES rooms(id), check_in TEXT NOT NULL, check_out TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked','cancelled')), breakfast INTEGER NOT NULL DEFAULT 0 CHECK (breakfast IN (0,1)), total REAL NOT NULL, booked_at TEXT NOT NULL, cancelled_at TEXT, CHECK (check_out > check_in));

CREATE INDEX bookings_room ON bookings(room_id);

CREATE INDEX bookings_guest ON bookings(guest_id);
