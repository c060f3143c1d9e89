CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, phone TEXT NOT NULL UNIQUE);

CREATE TABLE vehicles (registration TEXT PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(id), make_model TEXT NOT NULL);

CREATE TABLE services (code TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, price REAL NOT NULL CHECK (price > 0));

CREATE TABLE slots (id TEXT PRIMARY KEY, service_code TEXT NOT NULL REFERENCES services(code), starts_at TEXT NOT NULL, bays INTEGER NOT NULL CHECK (bays > 0), UNIQUE (service_code, starts_at));

CREATE TABLE bookings (id INTEGER PRIMARY KEY, slot_id TEXT NOT NULL REFERENCES slots(id), registration TEXT NOT NULL REFERENCES vehicles(registration), status TEXT NOT NULL CHECK (status IN ('booked','in_progress','completed','cancelled')), booked_at TEXT NOT NULL);

CREATE TABLE quotes (id INTEGER PRIMARY KEY, booking_id INTEGER NOT NULL REFERENCES bookings(id), item TEXT NOT NULL, amount REAL NOT NULL CHECK (amount > 0), status TEXT NOT NULL CHECK (status IN ('pending','approved','declined')));

CREATE TABLE invoices (id TEXT PRIMARY KEY, booking_id INTEGER NOT NULL REFERENCES bookings(id), total REAL NOT NULL CHECK (total >= 0), issued_on TEXT NOT NULL);
