CREATE TABLE passengers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE fare_classes (code TEXT PRIMARY KEY, name TEXT NOT NULL, change_fee REAL NOT NULL CHECK (change_fee >= 0), bag_limit INTEGER NOT NULL CHECK (bag_limit >= 0), refundable INTEGER NOT NULL CHECK (refundable IN (0,1)));

CREATE TABLE flights (id TEXT PRIMARY KEY, origin TEXT NOT NULL, destination TEXT NOT NULL, departs_at TEXT NOT NULL, price REAL NOT NULL CHECK (price > 0));

CREATE TABLE bookings (id TEXT PRIMARY KEY, passenger_id TEXT NOT NULL REFERENCES passengers(id), flight_id TEXT NOT NULL REFERENCES flights(id), fare_code TEXT NOT NULL REFERENCES fare_classes(code), bags INTEGER NOT NULL CHECK (bags >= 0), amount_paid REAL NOT NULL CHECK (amount_paid >= 0), status TEXT NOT NULL CHECK (status IN ('confirmed','cancelled')), refund REAL);

CREATE TABLE seats (flight_id TEXT NOT NULL REFERENCES flights(id), seat TEXT NOT NULL, booking_id TEXT REFERENCES bookings(id), PRIMARY KEY (flight_id, seat));
