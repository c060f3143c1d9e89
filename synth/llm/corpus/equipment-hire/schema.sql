CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, trade_account INTEGER NOT NULL DEFAULT 0 CHECK (trade_account IN (0,1)));

CREATE TABLE items (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, category TEXT NOT NULL, day_rate REAL NOT NULL, weekly_rate REAL NOT NULL, deposit REAL NOT NULL);

CREATE TABLE units (id TEXT PRIMARY KEY, item_id TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('in_service','retired')), FOREIGN KEY (item_id) REFERENCES items(id));

CREATE TABLE accessories (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, price REAL NOT NULL);

CREATE TABLE hires (id INTEGER PRIMARY KEY, customer_id TEXT NOT NULL, unit_id TEXT NOT NULL, start_date TEXT NOT NULL, end_date TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked','on_hire','returned','cancelled')), hire_charge REAL NOT NULL, deposit REAL NOT NULL, returned_on TEXT, late_days INTEGER NOT NULL DEFAULT 0, late_charge REAL NOT NULL DEFAULT 0, damage_charge REAL NOT NULL DEFAULT 0, deposit_refunded REAL, cancel_charge REAL NOT NULL DEFAULT 0, FOREIGN KEY (customer_id) REFERENCES customers(id), FOREIGN KEY (unit_id) REFERENCES units(id));

CREATE TABLE hire_accessories (id INTEGER PRIMARY KEY, hire_id INTEGER NOT NULL, accessory_id TEXT NOT NULL, quantity INTEGER NOT NULL CHECK (quantity > 0), unit_price REAL NOT NULL, FOREIGN KEY (hire_id) REFERENCES hires(id), FOREIGN KEY (accessory_id) REFERENCES accessories(id));

CREATE INDEX idx_hires_unit ON hires(unit_id, start_date, end_date);

CREATE INDEX idx_hires_customer ON hires(customer_id);
