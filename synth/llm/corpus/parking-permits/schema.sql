CREATE TABLE households (id TEXT PRIMARY KEY, holder_name TEXT NOT NULL, address TEXT NOT NULL, postcode TEXT NOT NULL, zone TEXT NOT NULL, visitor_allowance INTEGER NOT NULL);

CREATE TABLE permits (id TEXT PRIMARY KEY, household_id TEXT NOT NULL, plate TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('active','cancelled','expired')), starts_on TEXT NOT NULL, expires_on TEXT NOT NULL, price REAL NOT NULL, refund REAL NOT NULL, FOREIGN KEY (household_id) REFERENCES households(id));

CREATE TABLE visitor_passes (id INTEGER PRIMARY KEY, household_id TEXT NOT NULL, pass_date TEXT NOT NULL, quantity INTEGER NOT NULL CHECK (quantity > 0), bought_at TEXT NOT NULL, FOREIGN KEY (household_id) REFERENCES households(id));
