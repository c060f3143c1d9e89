CREATE TABLE customers (account_no TEXT PRIMARY KEY, name TEXT NOT NULL, pin TEXT NOT NULL);

CREATE TABLE sites (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE);

CREATE TABLE units (id TEXT PRIMARY KEY, site_id TEXT NOT NULL, size TEXT NOT NULL CHECK (size IN ('small', 'medium', 'large')), monthly_rent REAL NOT NULL CHECK (monthly_rent > 0), FOREIGN KEY (site_id) REFERENCES sites(id));

CREATE TABLE rentals (id TEXT PRIMARY KEY, account_no TEXT NOT NULL, unit_id TEXT NOT NULL, start_date TEXT NOT NULL, end_date TEXT, status TEXT NOT NULL CHECK (status IN ('active', 'ending', 'ended')), monthly_rent REAL NOT NULL, rent_from TEXT NOT NULL, insured INTEGER NOT NULL CHECK (insured IN (0, 1)), FOREIGN KEY (account_no) REFERENCES customers(account_no), FOREIGN KEY (unit_id) REFERENCES units(id));

CREATE TABLE invoices (id TEXT PRIMARY KEY, rental_id TEXT NOT NULL, amount REAL NOT NULL CHECK (amount > 0), due_date TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('paid', 'unpaid')), paid_at TEXT, FOREIGN KEY (rental_id) REFERENCES rentals(id));

CREATE INDEX rentals_by_unit ON rentals(unit_id);
