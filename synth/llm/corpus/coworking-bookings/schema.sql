CREATE TABLE plans (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, monthly_hours REAL NOT NULL, guest_pass_price REAL NOT NULL);

CREATE TABLE members (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, plan_id TEXT NOT NULL, FOREIGN KEY (plan_id) REFERENCES plans(id));

CREATE TABLE spaces (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, kind TEXT NOT NULL CHECK (kind IN ('desk','room')), capacity INTEGER NOT NULL CHECK (capacity > 0));

CREATE TABLE bookings (id TEXT PRIMARY KEY, member_id TEXT NOT NULL, space_id TEXT NOT NULL, booking_date TEXT NOT NULL, start_time TEXT NOT NULL, end_time TEXT NOT NULL, hours REAL NOT NULL, attendees INTEGER NOT NULL, status TEXT NOT NULL CHECK (status IN ('active','cancelled')), FOREIGN KEY (member_id) REFERENCES members(id), FOREIGN KEY (space_id) REFERENCES spaces(id));

CREATE TABLE guest_passes (id INTEGER PRIMARY KEY, member_id TEXT NOT NULL, guest_name TEXT NOT NULL, pass_date TEXT NOT NULL, price REAL NOT NULL, FOREIGN KEY (member_id) REFERENCES members(id));

CREATE TABLE invoices (id TEXT PRIMARY KEY, member_id TEXT NOT NULL, month TEXT NOT NULL, amount REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('paid','unpaid')), FOREIGN KEY (member_id) REFERENCES members(id));

CREATE INDEX idx_bookings_member ON bookings(member_id);
