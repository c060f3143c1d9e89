CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE restaurants (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, is_open INTEGER NOT NULL CHECK (is_open IN (0,1)), min_order REAL NOT NULL, delivery_fee REAL NOT NULL);

CREATE TABLE dishes (id TEXT PRIMARY KEY, restaurant_id TEXT NOT NULL REFERENCES restaurants(id), name TEXT NOT NULL, price REAL NOT NULL CHECK (price > 0), available INTEGER NOT NULL CHECK (available IN (0,1)), UNIQUE (restaurant_id, name));

CREATE TABLE promo_codes (code TEXT PRIMARY KEY, amount_off REAL NOT NULL CHECK (amount_off > 0), min_subtotal REAL NOT NULL, active INTEGER NOT NULL CHECK (active IN (0,1)));

CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(id), restaurant_id TEXT NOT NULL REFERENCES restaurants(id), status TEXT NOT NULL CHECK (status IN ('placed','accepted','delivered','cancelled')), subtotal REAL NOT NULL, delivery_fee REAL NOT NULL, discount REAL NOT NULL DEFAULT 0, total REAL NOT NULL, promo_code TEXT REFERENCES promo_codes(code), rating INTEGER CHECK (rating BETWEEN 1 AND 5), placed_at TEXT NOT NULL);

CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id), dish_id TEXT NOT NULL REFERENCES dishes(id), quantity INTEGER NOT NULL CHECK (quantity > 0), unit_price REAL NOT NULL);

CREATE INDEX order_items_order ON order_items(order_id);
