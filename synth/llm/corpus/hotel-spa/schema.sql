CREATE TABLE guests (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, room_number TEXT NOT NULL, check_in TEXT NOT NULL, check_out TEXT NOT NULL);

CREATE TABLE treatments (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, duration_min INTEGER NOT NULL CHECK (duration_min > 0), price REAL NOT NULL CHECK (price >= 0));

CREATE TABLE therapists (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE);

CREATE TABLE therapist_treatments (therapist_id TEXT NOT NULL, treatment_id TEXT NOT NULL, PRIMARY KEY (therapist_id, treatment_id), FOREIGN KEY (therapist_id) REFERENCES therapists(id), FOREIGN KEY (treatment_id) REFERENCES treatments(id));

CREATE TABLE bookings (id INTEGER PRIMARY KEY, guest_id TEXT NOT NULL, therapist_id TEXT NOT NULL, treatment_id TEXT NOT NULL, starts_at TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked', 'cancelled', 'late_cancelled')), price REAL NOT NULL, created_at TEXT NOT NULL, FOREIGN KEY (guest_id) REFERENCES guests(id), FOREIGN KEY (therapist_id) REFERENCES therapists(id), FOREIGN KEY (treatment_id) REFERENCES treatments(id));

CREATE TABLE vouchers (code TEXT PRIMARY KEY, guest_id TEXT NOT NULL, value REAL NOT NULL CHECK (value > 0), redeemed_at TEXT, FOREIGN KEY (guest_id) REFERENCES guests(id));

CREATE INDEX bookings_by_therapist ON bookings(therapist_id, starts_at);
