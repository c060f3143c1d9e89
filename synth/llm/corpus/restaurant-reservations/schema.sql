CREATE TABLE guests (id TEXT PRIMARY KEY, name TEXT NOT NULL, phone TEXT NOT NULL UNIQUE);

CREATE TABLE branches (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, max_party INTEGER NOT NULL);

CREATE TABLE slots (id TEXT PRIMARY KEY, branch_id TEXT NOT NULL, date TEXT NOT NULL, time TEXT NOT NULL, capacity INTEGER NOT NULL CHECK (capacity > 0), UNIQUE (branch_id, date, time), FOREIGN KEY (branch_id) REFERENCES branches(id));

CREATE TABLE bookings (id TEXT PRIMARY KEY, guest_id TEXT NOT NULL, branch_id TEXT NOT NULL, date TEXT NOT NULL, time TEXT NOT NULL, party_size INTEGER NOT NULL CHECK (party_size > 0), status TEXT NOT NULL CHECK (status IN ('confirmed','cancelled')), deposit_paid REAL NOT NULL DEFAULT 0, deposit_refunded REAL NOT NULL DEFAULT 0, cancelled_at TEXT, FOREIGN KEY (guest_id) REFERENCES guests(id), FOREIGN KEY (branch_id) REFERENCES branches(id));

CREATE TABLE set_menus (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, price REAL NOT NULL);

CREATE TABLE preorders (id INTEGER PRIMARY KEY, booking_id TEXT NOT NULL, menu_id TEXT NOT NULL, quantity INTEGER NOT NULL CHECK (quantity > 0), UNIQUE (booking_id, menu_id), FOREIGN KEY (booking_id) REFERENCES bookings(id), FOREIGN KEY (menu_id) REFERENCES set_menus(id));

CREATE TABLE waitlist (id INTEGER PRIMARY KEY, guest_id TEXT NOT NULL, branch_id TEXT NOT NULL, date TEXT NOT NULL, time TEXT NOT NULL, party_size INTEGER NOT NULL CHECK (party_size > 0), created_at TEXT NOT NULL, FOREIGN KEY (guest_id) REFERENCES guests(id), FOREIGN KEY (branch_id) REFERENCES branches(id));

CREATE INDEX bookings_slot ON bookings(branch_id, date, time);
