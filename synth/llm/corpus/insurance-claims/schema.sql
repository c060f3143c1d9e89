CREATE TABLE policyholders (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, phone TEXT NOT NULL);

CREATE TABLE policies (number TEXT PRIMARY KEY, holder_id TEXT NOT NULL REFERENCES policyholders(id), status TEXT NOT NULL CHECK (status IN ('active','expired','cancelled')), cover_start TEXT NOT NULL, cover_end TEXT NOT NULL, deductible REAL NOT NULL CHECK (deductible >= 0));

CREATE TABLE vehicles (registration TEXT PRIMARY KEY, policy_number TEXT NOT NULL REFERENCES policies(number), make_model TEXT NOT NULL, year INTEGER NOT NULL);

CREATE TABLE claims (id TEXT PRIMARY KEY, policy_number TEXT NOT NULL REFERENCES policies(number), registration TEXT NOT NULL REFERENCES vehicles(registration), incident_date TEXT NOT NULL, description TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('open','closed','withdrawn')), filed_at TEXT NOT NULL, closed_at TEXT);

CREATE TABLE claim_attachments (id INTEGER PRIMARY KEY, claim_id TEXT NOT NULL REFERENCES claims(id), kind TEXT NOT NULL CHECK (kind IN ('photo','note')), content TEXT NOT NULL, added_at TEXT NOT NULL);
