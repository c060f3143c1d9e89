CREATE TABLE members (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, level TEXT NOT NULL CHECK (level IN ('basic','plus','premium')));

CREATE TABLE classes (id TEXT PRIMARY KEY, name TEXT NOT NULL, starts_at TEXT NOT NULL, capacity INTEGER NOT NULL CHECK (capacity > 0), min_level TEXT NOT NULL CHECK (min_level IN ('basic','plus','premium')), instructor TEXT NOT NULL, UNIQUE (name, starts_at));

CREATE TABLE bookings (id INTEGER PRIMARY KEY, class_id TEXT NOT NULL REFERENCES classes(id), member_id TEXT NOT NULL REFERENCES members(id), status TEXT NOT NULL CHECK (status IN ('booked','waitlisted','cancelled')), created_at TEXT NOT NULL, cancelled_at TEXT);

CREATE INDEX bookings_class ON bookings(class_id);
