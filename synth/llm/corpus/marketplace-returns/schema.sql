CREATE TABLE buyers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE sellers (id TEXT PRIMARY KEY, name TEXT NOT NULL, return_window_days INTEGER NOT NULL);

CREATE TABLE products (id TEXT PRIMARY KEY, name TEXT NOT NULL, seller_id TEXT NOT NULL, FOREIGN KEY (seller_id) REFERENCES sellers(id));

CREATE TABLE variants (id TEXT PRIMARY KEY, product_id TEXT NOT NULL, size TEXT NOT NULL, price REAL NOT NULL, stock INTEGER NOT NULL CHECK (stock >= 0), UNIQUE (product_id, size), FOREIGN KEY (product_id) REFERENCES products(id));

CREATE TABLE orders (id TEXT PRIMARY KEY, buyer_id TEXT NOT NULL, placed_at TEXT NOT NULL, delivered_on TEXT, status TEXT NOT NULL CHECK (status IN ('placed','shipped','delivered')), FOREIGN KEY (buyer_id) REFERENCES buyers(id));

CREATE TABLE order_items (id TEXT PRIMARY KEY, order_id TEXT NOT NULL, variant_id TEXT NOT NULL, quantity INTEGER NOT NULL, unit_price REAL NOT NULL, FOREIGN KEY (order_id) REFERENCES orders(id), FOREIGN KEY (variant_id) REFERENCES variants(id));

CREATE TABLE returns (id TEXT PRIMARY KEY, order_item_id TEXT NOT NULL, buyer_id TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('refund','exchange')), exchange_variant_id TEXT, reason TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('requested','shipped','received','refunded','exchanged','cancelled')), refund_amount REAL NOT NULL, created_at TEXT NOT NULL, FOREIGN KEY (order_item_id) REFERENCES order_items(id), FOREIGN KEY (buyer_id) REFERENCES buyers(id), FOREIGN KEY (exchange_variant_id) REFERENCES variants(id));
