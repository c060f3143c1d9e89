CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, postcode TEXT NOT NULL);

CREATE TABLE products (sku TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, price REAL NOT NULL CHECK (price >= 0), in_stock INTEGER NOT NULL CHECK (in_stock IN (0,1)));

CREATE TABLE delivery_slots (id TEXT PRIMARY KEY, date TEXT NOT NULL, window TEXT NOT NULL, cutoff_at TEXT NOT NULL, capacity INTEGER NOT NULL CHECK (capacity >= 0), UNIQUE (date, window));

CREATE TABLE promo_codes (code TEXT PRIMARY KEY, percent_off INTEGER NOT NULL CHECK (percent_off BETWEEN 1 AND 50), valid_until TEXT NOT NULL);

CREATE TABLE orders (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(id), slot_id TEXT NOT NULL REFERENCES delivery_slots(id), status TEXT NOT NULL CHECK (status IN ('scheduled','delivered','cancelled')), promo_code TEXT REFERENCES promo_codes(code), delivered_at TEXT);

CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id), sku TEXT NOT NULL REFERENCES products(sku), quantity INTEGER NOT NULL CHECK (quantity > 0), unit_price REAL NOT NULL, UNIQUE (order_id, sku));

CREATE TABLE refunds (id INTEGER PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id), sku TEXT NOT NULL REFERENCES products(sku), reason TEXT NOT NULL CHECK (reason IN ('damaged','missing')), amount REAL NOT NULL CHECK (amount > 0), requested_at TEXT NOT NULL, UNIQUE (order_id, sku));

CREATE INDEX orders_customer ON orders(customer_id);
