CREATE TABLE applicants (id TEXT PRIMARY KEY, name TEXT NOT NULL, date_of_birth TEXT NOT NULL);

CREATE TABLE offices (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, city TEXT NOT NULL);

CREATE TABLE applications (id TEXT PRIMARY KEY, applicant_id TEXT NOT NULL, passport_number TEXT NOT NULL, passport_issued_on TEXT NOT NULL, passport_expires_on TEXT NOT NULL, lost_or_stolen INTEGER NOT NULL DEFAULT 0 CHECK (lost_or_stolen IN (0,1)), route TEXT NOT NULL CHECK (route IN ('undecided','postal','in_person')), status TEXT NOT NULL CHECK (status IN ('received','processing','printed','dispatched')), fast_track INTEGER NOT NULL DEFAULT 0 CHECK (fast_track IN (0,1)), address TEXT NOT NULL, FOREIGN KEY (applicant_id) REFERENCES applicants(id));

CREATE TABLE slots (id TEXT PRIMARY KEY, office_id TEXT NOT NULL, starts_at TEXT NOT NULL, FOREIGN KEY (office_id) REFERENCES offices(id));

CREATE TABLE appointments (id INTEGER PRIMARY KEY, application_id TEXT NOT NULL, slot_id TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked','cancelled')), booked_at TEXT NOT NULL, FOREIGN KEY (application_id) REFERENCES applications(id), FOREIGN KEY (slot_id) REFERENCES slots(id));

CREATE TABLE fee_payments (id INTEGER PRIMARY KEY, application_id TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('standard','fast_track')), amount REAL NOT NULL, paid_at TEXT NOT NULL, FOREIGN KEY (application_id) REFERENCES applications(id));

CREATE INDEX slots_by_office ON slots(office_id, starts_at);
