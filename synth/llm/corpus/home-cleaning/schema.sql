CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, postcode TEXT NOT NULL, bedrooms INTEGER NOT NULL CHECK (bedrooms > 0), loyalty_credit REAL NOT NULL DEFAULT 0);

CREATE TABLE cleaners (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE);

CREATE TABLE services (id TEXT PRIMARY KEY CHECK (id IN ('standard','deep','move_out')), name TEXT NOT NULL, base_price REAL NOT NULL, per_bedroom REAL NOT NULL);

CREATE TABLE extras (id TEXT PRIMARY KEY CHECK (id IN ('oven','windows','fridge')), name TEXT NOT NULL, price REAL NOT NULL);

CREATE TABLE visits (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, cleaner_id TEXT NOT NULL, service_id TEXT NOT NULL, start TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked','completed','cancelled')), price REAL NOT NULL, credit_applied REAL NOT NULL DEFAULT 0, cancel_fee REAL NOT NULL DEFAULT 0, rating INTEGER CHECK (rating IS NULL OR (rating BETWEEN 1 AND 5)), rated_at TEXT, reclean_of TEXT, FOREIGN KEY (customer_id) REFERENCES customers(id), FOREIGN KEY (cleaner_id) REFERENCES cleaners(id), FOREIGN KEY (service_id) REFERENCES services(id), FOREIGN KEY (reclean_of) REFERENCES visits(id));

CREATE TABLE visit_extras (visit_id TEXT NOT NULL, extra_id TEXT NOT NULL, price REAL NOT NULL, PRIMARY KEY (visit_id, extra_id), FOREIGN KEY (visit_id) REFERENCES visits(id), FOREIGN KEY (extra_id) REFERENCES extras(id));

CREATE INDEX visits_customer ON visits(customer_id, start);

CREATE INDEX visits_cleaner ON visits(cleaner_id, start);
