CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE products (id TEXT PRIMARY KEY CHECK (id IN ('flyers','posters','business_cards')), name TEXT NOT NULL);

CREATE TABLE price_tiers (product_id TEXT NOT NULL, quantity INTEGER NOT NULL, price REAL NOT NULL, PRIMARY KEY (product_id, quantity), FOREIGN KEY (product_id) REFERENCES products(id));

CREATE TABLE orders (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, product_id TEXT NOT NULL, quantity INTEGER NOT NULL, paper TEXT NOT NULL CHECK (paper IN ('standard','premium')), express INTEGER NOT NULL DEFAULT 0 CHECK (express IN (0,1)), status TEXT NOT NULL CHECK (status IN ('awaiting_proof','proof_approved','printed','cancelled')), price REAL NOT NULL, cancel_fee REAL NOT NULL DEFAULT 0, proof_approved_at TEXT, due_date TEXT, created_at TEXT NOT NULL, FOREIGN KEY (customer_id) REFERENCES customers(id), FOREIGN KEY (product_id) REFERENCES products(id));
