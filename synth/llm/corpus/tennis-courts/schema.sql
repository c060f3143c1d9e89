CREATE TABLE members (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE courts (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, surface TEXT NOT NULL CHECK (surface IN ('clay','hard','indoor')), hourly_fee REAL NOT NULL);

CREATE TABLE bookings (id TEXT PRIMARY KEY, member_id TEXT NOT NULL, court_id TEXT NOT NULL, date TEXT NOT NULL, hour INTEGER NOT NULL CHECK (hour BETWEEN 8 AND 21), status TEXT NOT NULL CHECK (status IN ('booked','cancelled')), partner TEXT, floodlights INTEGER NOT NULL DEFAULT 0, fee REAL NOT NULL, refunded REAL NOT NULL DEFAULT 0, FOREIGN KEY (member_id) REFERENCES members(id), FOREIGN KEY (court_id) REFERENCES courts(id));
