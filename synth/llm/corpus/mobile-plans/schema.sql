CREATE TABLE plans (code TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, monthly_price REAL NOT NULL CHECK (monthly_price > 0), data_gb INTEGER NOT NULL CHECK (data_gb > 0), roaming_allowed INTEGER NOT NULL CHECK (roaming_allowed IN (0,1)));

CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, pin TEXT NOT NULL, postal_address TEXT NOT NULL);

CREATE TABLE lines (msisdn TEXT PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(id), plan_code TEXT NOT NULL REFERENCES plans(code), status TEXT NOT NULL CHECK (status IN ('active','suspended')), cycle_start TEXT NOT NULL, last_plan_change TEXT);

CREATE TABLE addons (code TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, kind TEXT NOT NULL CHECK (kind IN ('roaming','data')), monthly_price REAL NOT NULL CHECK (monthly_price > 0));

CREATE TABLE line_addons (id INTEGER PRIMARY KEY, msisdn TEXT NOT NULL REFERENCES lines(msisdn), addon_code TEXT NOT NULL REFERENCES addons(code), added_at TEXT NOT NULL, UNIQUE (msisdn, addon_code));

CREATE TABLE sims (iccid TEXT PRIMARY KEY, msisdn TEXT NOT NULL REFERENCES lines(msisdn), status TEXT NOT NULL CHECK (status IN ('active','lost','replaced','ordered')), updated_at TEXT NOT NULL);

CREATE TABLE sim_orders (id INTEGER PRIMARY KEY, msisdn TEXT NOT NULL REFERENCES lines(msisdn), reason TEXT NOT NULL CHECK (reason IN ('lost','damaged')), ship_to TEXT NOT NULL, ordered_at TEXT NOT NULL);
