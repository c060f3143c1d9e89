CREATE TABLE renters (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE sites (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE);

CREATE TABLE units (id TEXT PRIMARY KEY, site_id TEXT NOT NULL, size TEXT NOT NULL CHECK (size IN ('small','medium','large')), monthly_price REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('vacant','occupied')), FOREIGN KEY (site_id) REFERENCES sites(id));

CREATE TABLE rentals (id TEXT PRIMARY KEY, renter_id TEXT NOT NULL, unit_id TEXT NOT NULL, started_on TEXT NOT NULL, insured INTEGER NOT NULL CHECK (insured IN (0,1)), end_date TEXT, status TEXT NOT NULL CHECK (status IN ('active','ended')), FOREIGN KEY (renter_id) REFERENCES renters(id), FOREIGN KEY (unit_id) REFERENCES units(id));

CREATE TABLE invoices (id TEXT PRIMARY KEY, renter_id TEXT NOT NULL, rental_id TEXT NOT NULL, amount REAL NOT NULL, due_on TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('open','overdue','paid')), paid_at TEXT, FOREIGN KEY (renter_id) REFERENCES renters(id), FOREIGN KEY (rental_id) REFERENCES rentals(id));
