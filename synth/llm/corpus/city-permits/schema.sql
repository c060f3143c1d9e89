CREATE TABLE residents (id TEXT PRIMARY KEY, name TEXT NOT NULL, zip TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE permit_types (code TEXT PRIMARY KEY CHECK (code IN ('parking','event','building')), title TEXT NOT NULL, fee REAL NOT NULL CHECK (fee >= 0));

CREATE TABLE applications (id INTEGER PRIMARY KEY, resident_id TEXT NOT NULL REFERENCES residents(id), type TEXT NOT NULL REFERENCES permit_types(code), description TEXT NOT NULL, event_date TEXT, fee REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('submitted','paid','approved','rejected','withdrawn')), submitted_at TEXT NOT NULL, paid_at TEXT, decided_at TEXT);

CREATE TABLE permits (id INTEGER PRIMARY KEY, application_id INTEGER NOT NULL UNIQUE REFERENCES applications(id), resident_id TEXT NOT NULL REFERENCES residents(id), type TEXT NOT NULL REFERENCES permit_types(code), valid_until TEXT NOT NULL, active INTEGER NOT NULL CHECK (active IN (0,1)));

CREATE INDEX applications_resident ON applications(resident_id);
