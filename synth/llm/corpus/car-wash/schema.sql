CREATE TABLE plans (id TEXT PRIMARY KEY CHECK (id IN ('basic','deluxe','ultimate')), name TEXT NOT NULL, monthly_price REAL NOT NULL, rank INTEGER NOT NULL);

CREATE TABLE memberships (id TEXT PRIMARY KEY, customer_name TEXT NOT NULL, plan_id TEXT NOT NULL, pending_plan_id TEXT, status TEXT NOT NULL CHECK (status IN ('active','paused','cancelling','cancelled')), paused_until TEXT, pause_months_used INTEGER NOT NULL DEFAULT 0, next_bill_date TEXT NOT NULL, cancel_at TEXT, FOREIGN KEY (plan_id) REFERENCES plans(id), FOREIGN KEY (pending_plan_id) REFERENCES plans(id));

CREATE TABLE vehicles (plate TEXT PRIMARY KEY, membership_id TEXT NOT NULL, is_primary INTEGER NOT NULL CHECK (is_primary IN (0,1)), FOREIGN KEY (membership_id) REFERENCES memberships(id));

CREATE TABLE charges (id INTEGER PRIMARY KEY, membership_id TEXT NOT NULL, description TEXT NOT NULL, amount REAL NOT NULL, date TEXT NOT NULL, FOREIGN KEY (membership_id) REFERENCES memberships(id));
