CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, phone TEXT NOT NULL UNIQUE);

CREATE TABLE services (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, price REAL NOT NULL);

CREATE TABLE parts (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, price REAL NOT NULL);

CREATE TABLE workshop_days (date TEXT PRIMARY KEY, capacity INTEGER NOT NULL);

CREATE TABLE jobs (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, service_id TEXT NOT NULL, date TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('awaiting_approval','approved','in_progress','completed','declined','cancelled')), labour REAL NOT NULL, discount_percent REAL NOT NULL DEFAULT 0, created_at TEXT NOT NULL, FOREIGN KEY (customer_id) REFERENCES customers(id), FOREIGN KEY (service_id) REFERENCES services(id), FOREIGN KEY (date) REFERENCES workshop_days(date));

CREATE TABLE job_parts (id INTEGER PRIMARY KEY, job_id TEXT NOT NULL, part_id TEXT NOT NULL, quantity INTEGER NOT NULL CHECK (quantity > 0), price REAL NOT NULL, FOREIGN KEY (job_id) REFERENCES jobs(id), FOREIGN KEY (part_id) REFERENCES parts(id));
