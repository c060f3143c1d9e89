CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, postcode TEXT NOT NULL, area TEXT NOT NULL, cover_plan INTEGER NOT NULL DEFAULT 0 CHECK (cover_plan IN (0,1)), plan_start TEXT);

CREATE TABLE engineers (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, gas_safe INTEGER NOT NULL CHECK (gas_safe IN (0,1)));

CREATE TABLE engineer_areas (engineer_id TEXT NOT NULL, area TEXT NOT NULL, PRIMARY KEY (engineer_id, area), FOREIGN KEY (engineer_id) REFERENCES engineers(id));

CREATE TABLE slots (id TEXT PRIMARY KEY, engineer_id TEXT NOT NULL, slot_date TEXT NOT NULL, period TEXT NOT NULL CHECK (period IN ('morning','afternoon')), starts_at TEXT NOT NULL, UNIQUE (engineer_id, slot_date, period), FOREIGN KEY (engineer_id) REFERENCES engineers(id));

CREATE TABLE visits (id INTEGER PRIMARY KEY, customer_id TEXT NOT NULL, slot_id TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('service','repair')), gas_work INTEGER NOT NULL CHECK (gas_work IN (0,1)), description TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked','completed','cancelled')), callout_fee REAL NOT NULL DEFAULT 0, parts_cost REAL NOT NULL DEFAULT 0, cancel_fee REAL NOT NULL DEFAULT 0, amount_due REAL NOT NULL DEFAULT 0, paid INTEGER NOT NULL DEFAULT 0 CHECK (paid IN (0,1)), FOREIGN KEY (customer_id) REFERENCES customers(id), FOREIGN KEY (slot_id) REFERENCES slots(id));

CREATE TABLE visit_parts (id INTEGER PRIMARY KEY, visit_id INTEGER NOT NULL, part_name TEXT NOT NULL, quantity INTEGER NOT NULL CHECK (quantity > 0), unit_price REAL NOT NULL, FOREIGN KEY (visit_id) REFERENCES visits(id));

CREATE INDEX idx_visits_customer ON visits(customer_id);

CREATE INDEX idx_visits_slot ON visits(slot_id);
