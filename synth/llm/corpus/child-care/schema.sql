CREATE TABLE parents (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE rooms (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, min_age_months INTEGER NOT NULL, max_age_months INTEGER NOT NULL, daily_fee REAL NOT NULL, capacity INTEGER NOT NULL CHECK (capacity > 0));

CREATE TABLE children (id TEXT PRIMARY KEY, parent_id TEXT NOT NULL, name TEXT NOT NULL, birth_date TEXT NOT NULL, FOREIGN KEY (parent_id) REFERENCES parents(id));

CREATE TABLE sessions (id INTEGER PRIMARY KEY, child_id TEXT NOT NULL, room_id TEXT NOT NULL, date TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked','cancelled','attended','absent')), fee REAL NOT NULL, discount REAL NOT NULL DEFAULT 0, refund REAL NOT NULL DEFAULT 0, cancelled_at TEXT, FOREIGN KEY (child_id) REFERENCES children(id), FOREIGN KEY (room_id) REFERENCES rooms(id));

CREATE TABLE pickups (id INTEGER PRIMARY KEY, child_id TEXT NOT NULL, name TEXT NOT NULL, phone TEXT NOT NULL, FOREIGN KEY (child_id) REFERENCES children(id));

CREATE TABLE invoices (id TEXT PRIMARY KEY, parent_id TEXT NOT NULL, issued TEXT NOT NULL, due_date TEXT NOT NULL, amount REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('unpaid','paid')), paid_at TEXT, FOREIGN KEY (parent_id) REFERENCES parents(id));

CREATE INDEX sessions_room_date ON sessions(room_id, date);

CREATE INDEX sessions_child ON sessions(child_id, date);
