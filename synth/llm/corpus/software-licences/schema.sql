CREATE TABLE customers (account_number TEXT PRIMARY KEY, company TEXT NOT NULL, billing_email TEXT NOT NULL UNIQUE);

CREATE TABLE products (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE);

CREATE TABLE plans (id TEXT PRIMARY KEY, product_id TEXT NOT NULL, name TEXT NOT NULL UNIQUE, price_per_seat_year REAL NOT NULL CHECK (price_per_seat_year >= 0), FOREIGN KEY (product_id) REFERENCES products(id));

CREATE TABLE subscriptions (id TEXT PRIMARY KEY, account_number TEXT NOT NULL, plan_id TEXT NOT NULL, seats INTEGER NOT NULL CHECK (seats > 0), renews_on TEXT NOT NULL, auto_renew INTEGER NOT NULL CHECK (auto_renew IN (0, 1)), FOREIGN KEY (account_number) REFERENCES customers(account_number), FOREIGN KEY (plan_id) REFERENCES plans(id));

CREATE TABLE seat_assignments (id INTEGER PRIMARY KEY, subscription_id TEXT NOT NULL, user_name TEXT NOT NULL, user_email TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('assigned', 'freed')), FOREIGN KEY (subscription_id) REFERENCES subscriptions(id));

CREATE TABLE seat_charges (id INTEGER PRIMARY KEY, subscription_id TEXT NOT NULL, seats_added INTEGER NOT NULL CHECK (seats_added > 0), amount REAL NOT NULL, charged_at TEXT NOT NULL, FOREIGN KEY (subscription_id) REFERENCES subscriptions(id));

CREATE INDEX seats_by_subscription ON seat_assignments(subscription_id);
