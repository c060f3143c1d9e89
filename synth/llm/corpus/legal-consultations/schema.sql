CREATE TABLE clients (number TEXT PRIMARY KEY, first_name TEXT NOT NULL, surname TEXT NOT NULL, email TEXT NOT NULL);

CREATE TABLE lawyers (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, practice_area TEXT NOT NULL CHECK (practice_area IN ('family','employment','property')));

CREATE TABLE matters (id TEXT PRIMARY KEY, client_number TEXT NOT NULL REFERENCES clients(number), practice_area TEXT NOT NULL CHECK (practice_area IN ('family','employment','property')), title TEXT NOT NULL, opposing_party TEXT NOT NULL);

CREATE TABLE conflicts (id INTEGER PRIMARY KEY, lawyer_id TEXT NOT NULL REFERENCES lawyers(id), party_name TEXT NOT NULL);

CREATE TABLE slots (id TEXT PRIMARY KEY, lawyer_id TEXT NOT NULL REFERENCES lawyers(id), starts_at TEXT NOT NULL, matter_id TEXT REFERENCES matters(id), UNIQUE (lawyer_id, starts_at));

CREATE TABLE invoices (id TEXT PRIMARY KEY, client_number TEXT NOT NULL REFERENCES clients(number), amount REAL NOT NULL CHECK (amount > 0), paid REAL NOT NULL CHECK (paid >= 0), issued_on TEXT NOT NULL);
