CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE models (id TEXT PRIMARY KEY, name TEXT NOT NULL, category TEXT NOT NULL, size TEXT NOT NULL CHECK (size IN ('large','small')), repair_price REAL NOT NULL);

CREATE TABLE products (serial TEXT PRIMARY KEY, customer_id TEXT NOT NULL, model_id TEXT NOT NULL, purchased_on TEXT NOT NULL, FOREIGN KEY (customer_id) REFERENCES customers(id), FOREIGN KEY (model_id) REFERENCES models(id));

CREATE TABLE plans (id TEXT PRIMARY KEY, serial TEXT NOT NULL, name TEXT NOT NULL, starts_on TEXT NOT NULL, ends_on TEXT NOT NULL, accidental_damage INTEGER NOT NULL CHECK (accidental_damage IN (0,1)), FOREIGN KEY (serial) REFERENCES products(serial));

CREATE TABLE claims (id TEXT PRIMARY KEY, serial TEXT NOT NULL, fault TEXT NOT NULL, cause TEXT NOT NULL CHECK (cause IN ('fault','accidental')), covered INTEGER NOT NULL CHECK (covered IN (0,1)), resolution TEXT NOT NULL CHECK (resolution IN ('repair','replacement')), service TEXT CHECK (service IN ('technician','mail_in')), status TEXT NOT NULL CHECK (status IN ('open','dispatched','completed','cancelled')), amount_paid REAL NOT NULL DEFAULT 0, opened_at TEXT NOT NULL, closed_at TEXT, FOREIGN KEY (serial) REFERENCES products(serial));

CREATE INDEX claims_serial ON claims (serial, status);

CREATE TABLE quotes (id TEXT PRIMARY KEY, serial TEXT NOT NULL, fault TEXT NOT NULL, amount REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('offered','accepted','declined')), claim_id TEXT, created_at TEXT NOT NULL, FOREIGN KEY (serial) REFERENCES products(serial), FOREIGN KEY (claim_id) REFERENCES claims(id));

CREATE TABLE visit_slots (id TEXT PRIMARY KEY, slot_date TEXT NOT NULL, period TEXT NOT NULL CHECK (period IN ('morning','afternoon')), technician TEXT NOT NULL, claim_id TEXT, FOREIGN KEY (claim_id) REFERENCES claims(id));

CREATE TABLE mail_in_labels (id TEXT PRIMARY KEY, claim_id TEXT NOT NULL UNIQUE, tracking_code TEXT NOT NULL, created_at TEXT NOT NULL, FOREIGN KEY (claim_id) REFERENCES claims(id));
