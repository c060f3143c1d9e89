CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE rooms (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, min_players INTEGER NOT NULL, max_players INTEGER NOT NULL, price REAL NOT NULL);

CREATE TABLE slots (id TEXT PRIMARY KEY, room_id TEXT NOT NULL, date TEXT NOT NULL, time TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('open','booked')), UNIQUE (room_id, date, time), FOREIGN KEY (room_id) REFERENCES rooms(id));

CREATE TABLE bookings (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, room_id TEXT NOT NULL, date TEXT NOT NULL, time TEXT NOT NULL, adults INTEGER NOT NULL, children INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL CHECK (status IN ('booked','cancelled')), paid REAL NOT NULL, refunded REAL NOT NULL DEFAULT 0, cancelled_at TEXT, FOREIGN KEY (customer_id) REFERENCES customers(id), FOREIGN KEY (room_id) REFERENCES rooms(id));

CREATE TABLE booking_extras (booking_id TEXT NOT NULL, extra TEXT NOT NULL CHECK (extra IN ('photo','hints')), price REAL NOT NULL, PRIMARY KEY (booking_id, extra), FOREIGN KEY (booking_id) REFERENCES bookings(id));

CREATE TABLE vouchers (code TEXT PRIMARY KEY, customer_id TEXT NOT NULL, value REAL NOT NULL, used_on TEXT, FOREIGN KEY (customer_id) REFERENCES customers(id), FOREIGN KEY (used_on) REFERENCES bookings(id));
