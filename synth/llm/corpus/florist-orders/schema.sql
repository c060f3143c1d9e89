CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE bouquets (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, price REAL NOT NULL, band TEXT NOT NULL CHECK (band IN ('budget','standard','premium')), in_stock INTEGER NOT NULL CHECK (in_stock IN (0,1)));

CREATE TABLE orders (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, bouquet_id TEXT NOT NULL, delivery_date TEXT NOT NULL, address TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('placed','prepared','delivered','cancelled')), card_message TEXT NOT NULL DEFAULT '', vase INTEGER NOT NULL DEFAULT 0, price REAL NOT NULL, delivery_fee REAL NOT NULL, created_at TEXT NOT NULL, FOREIGN KEY (customer_id) REFERENCES customers(id), FOREIGN KEY (bouquet_id) REFERENCES bouquets(id));
