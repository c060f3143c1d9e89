CREATE TABLE accounts (id TEXT PRIMARY KEY, holder_name TEXT NOT NULL, postcode TEXT NOT NULL, address TEXT NOT NULL, alert_channel TEXT NOT NULL CHECK (alert_channel IN ('email','sms','none')), alert_contact TEXT NOT NULL);

CREATE TABLE outages (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('power','water')), started_at TEXT NOT NULL, restored_at TEXT, estimated_restoration TEXT, status TEXT NOT NULL CHECK (status IN ('reported','crew_assigned','restored')), FOREIGN KEY (account_id) REFERENCES accounts(id));

CREATE TABLE credits (id INTEGER PRIMARY KEY, outage_id TEXT NOT NULL UNIQUE, account_id TEXT NOT NULL, amount REAL NOT NULL, requested_at TEXT NOT NULL, FOREIGN KEY (outage_id) REFERENCES outages(id), FOREIGN KEY (account_id) REFERENCES accounts(id));

CREATE TABLE tech_windows (id TEXT PRIMARY KEY, window_date TEXT NOT NULL, start_time TEXT NOT NULL, end_time TEXT NOT NULL, capacity INTEGER NOT NULL, booked INTEGER NOT NULL, UNIQUE (window_date, start_time));

CREATE TABLE tech_visits (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, window_id TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked','cancelled','done')), created_at TEXT NOT NULL, FOREIGN KEY (account_id) REFERENCES accounts(id), FOREIGN KEY (window_id) REFERENCES tech_windows(id));
