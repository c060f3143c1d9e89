CREATE TABLE centres (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE);

CREATE TABLE donors (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, blood_type TEXT NOT NULL, preferred_centre_id TEXT, FOREIGN KEY (preferred_centre_id) REFERENCES centres(id));

CREATE TABLE slots (id TEXT PRIMARY KEY, centre_id TEXT NOT NULL, starts_at TEXT NOT NULL, capacity INTEGER NOT NULL, booked INTEGER NOT NULL, UNIQUE (centre_id, starts_at), FOREIGN KEY (centre_id) REFERENCES centres(id));

CREATE TABLE appointments (id TEXT PRIMARY KEY, donor_id TEXT NOT NULL, slot_id TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('whole_blood','platelets')), status TEXT NOT NULL CHECK (status IN ('booked','cancelled','completed')), FOREIGN KEY (donor_id) REFERENCES donors(id), FOREIGN KEY (slot_id) REFERENCES slots(id));

CREATE TABLE donations (id INTEGER PRIMARY KEY, donor_id TEXT NOT NULL, centre_id TEXT NOT NULL, donated_on TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('whole_blood','platelets')), FOREIGN KEY (donor_id) REFERENCES donors(id), FOREIGN KEY (centre_id) REFERENCES centres(id));
