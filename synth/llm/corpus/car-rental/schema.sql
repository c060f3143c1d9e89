CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, licence_no TEXT NOT NULL UNIQUE, birth_date TEXT NOT NULL);

CREATE TABLE branches (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, one_way_fee REAL NOT NULL);

CREATE TABLE car_classes (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, daily_rate REAL NOT NULL, min_age INTEGER NOT NULL);

CREATE TABLE extras (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, daily_price REAL NOT NULL);

CREATE TABLE reservations (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, class_id TEXT NOT NULL, pickup_branch_id TEXT NOT NULL, return_branch_id TEXT NOT NULL, pickup_date TEXT NOT NULL, return_date TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked','cancelled','completed')), created_at TEXT NOT NULL, FOREIGN KEY (customer_id) REFERENCES customers(id), FOREIGN KEY (class_id) REFERENCES car_classes(id), FOREIGN KEY (pickup_branch_id) REFERENCES branches(id), FOREIGN KEY (return_branch_id) REFERENCES branches(id));

CREATE TABLE reservation_extras (id INTEGER PRIMARY KEY, reservation_id TEXT NOT NULL, extra_id TEXT NOT NULL, added_at TEXT NOT NULL, FOREIGN KEY (reservation_id) REFERENCES reservations(id), FOREIGN KEY (extra_id) REFERENCES extras(id));

CREATE INDEX idx_res_customer ON reservations(customer_id);
