CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, store_credit REAL NOT NULL DEFAULT 0);

CREATE TABLE books (id TEXT PRIMARY KEY, title TEXT NOT NULL UNIQUE, author TEXT NOT NULL, price REAL NOT NULL, stock INTEGER NOT NULL CHECK (stock >= 0), status TEXT NOT NULL CHECK (status IN ('available','preorder')), release_date TEXT NOT NULL);

CREATE TABLE discount_codes (code TEXT PRIMARY KEY, percent REAL NOT NULL, min_subtotal REAL NOT NULL, active INTEGER NOT NULL CHECK (active IN (0,1)));

CREATE TABLE orders (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('placed','preordered','shipped','delivered','cancelled')), payment TEXT NOT NULL CHECK (payment IN ('credit','card')), subtotal REAL NOT NULL, discount REAL NOT NULL DEFAULT 0, total REAL NOT NULL, code TEXT, created_at TEXT NOT NULL, delivered_on TEXT, FOREIGN KEY (customer_id) REFERENCES customers(id), FOREIGN KEY (code) REFERENCES discount_codes(code));

CREATE TABLE order_lines (id INTEGER PRIMARY KEY, order_id TEXT NOT NULL, book_id TEXT NOT NULL, quantity INTEGER NOT NULL CHECK (quantity > 0), unit_price REAL NOT NULL, returned INTEGER NOT NULL DEFAULT 0, FOREIGN KEY (order_id) REFERENCES orders(id), FOREIGN KEY (book_id) REFERENCES books(id));

CREATE TABLE code_uses (code TEXT NOT NULL, customer_id TEXT NOT NULL, order_id TEXT NOT NULL, PRIMARY KEY (code, customer_id), FOREIGN KEY (code) REFERENCES discount_codes(code), FOREIGN KEY (customer_id) REFERENCES customers(id), FOREIGN KEY (order_id) REFERENCES orders(id));

CREATE TABLE refunds (id INTEGER PRIMARY KEY, order_id TEXT NOT NULL, book_id TEXT, quantity INTEGER NOT NULL DEFAULT 0, amount REAL NOT NULL, method TEXT NOT NULL CHECK (method IN ('credit','card')), reason TEXT NOT NULL CHECK (reason IN ('return','cancellation')), created_at TEXT NOT NULL, FOREIGN KEY (order_id) REFERENCES orders(id), FOREIGN KEY (book_id) REFERENCES books(id));
