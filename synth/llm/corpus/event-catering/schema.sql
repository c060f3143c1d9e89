CREATE TABLE clients (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE packages (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, price_per_guest REAL NOT NULL);

CREATE TABLE dietary_options (id TEXT PRIMARY KEY CHECK (id IN ('vegetarian','vegan','gluten_free')), name TEXT NOT NULL, surcharge REAL NOT NULL);

CREATE TABLE orders (id TEXT PRIMARY KEY, client_id TEXT NOT NULL, package_id TEXT NOT NULL, event_date TEXT NOT NULL, venue TEXT NOT NULL, guests INTEGER NOT NULL CHECK (guests > 0), status TEXT NOT NULL CHECK (status IN ('confirmed','cancelled')), discount_percent REAL NOT NULL DEFAULT 0, paid REAL NOT NULL DEFAULT 0, cancellation_charge REAL NOT NULL DEFAULT 0, created_at TEXT NOT NULL, cancelled_at TEXT, FOREIGN KEY (client_id) REFERENCES clients(id), FOREIGN KEY (package_id) REFERENCES packages(id));

CREATE TABLE order_dietary (order_id TEXT NOT NULL, option_id TEXT NOT NULL, quantity INTEGER NOT NULL CHECK (quantity > 0), PRIMARY KEY (order_id, option_id), FOREIGN KEY (order_id) REFERENCES orders(id), FOREIGN KEY (option_id) REFERENCES dietary_options(id));

CREATE TABLE discount_codes (code TEXT PRIMARY KEY, client_id TEXT NOT NULL, percent REAL NOT NULL CHECK (percent > 0 AND percent < 100), used_on_order TEXT, FOREIGN KEY (client_id) REFERENCES clients(id), FOREIGN KEY (used_on_order) REFERENCES orders(id));
