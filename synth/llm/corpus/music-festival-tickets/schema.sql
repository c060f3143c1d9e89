CREATE TABLE fans (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE festival_days (day TEXT PRIMARY KEY, label TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('on','cancelled')));

CREATE TABLE products (id TEXT PRIMARY KEY, kind TEXT NOT NULL CHECK (kind IN ('day_ticket','weekend_pass')), day TEXT, price REAL NOT NULL, booking_fee REAL NOT NULL, stock INTEGER NOT NULL, FOREIGN KEY (day) REFERENCES festival_days(day));

CREATE TABLE orders (id TEXT PRIMARY KEY, fan_id TEXT NOT NULL, purchased_at TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('paid','refunded','part_refunded')), FOREIGN KEY (fan_id) REFERENCES fans(id));

CREATE TABLE tickets (id TEXT PRIMARY KEY, order_id TEXT NOT NULL, product_id TEXT NOT NULL, holder_name TEXT NOT NULL, name_changes INTEGER NOT NULL DEFAULT 0, price_paid REAL NOT NULL, booking_fee REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('valid','refunded','on_resale','upgraded')), FOREIGN KEY (order_id) REFERENCES orders(id), FOREIGN KEY (product_id) REFERENCES products(id));

CREATE TABLE addons (id TEXT PRIMARY KEY, kind TEXT NOT NULL CHECK (kind IN ('camping','parking','locker')), day TEXT, price REAL NOT NULL, stock INTEGER NOT NULL, FOREIGN KEY (day) REFERENCES festival_days(day));

CREATE TABLE ticket_addons (id INTEGER PRIMARY KEY, ticket_id TEXT NOT NULL, addon_id TEXT NOT NULL, added_at TEXT NOT NULL, FOREIGN KEY (ticket_id) REFERENCES tickets(id), FOREIGN KEY (addon_id) REFERENCES addons(id));

CREATE TABLE charges (id INTEGER PRIMARY KEY, fan_id TEXT NOT NULL, ticket_id TEXT, kind TEXT NOT NULL CHECK (kind IN ('purchase','upgrade','name_change','addon','refund')), amount REAL NOT NULL, created_at TEXT NOT NULL, FOREIGN KEY (fan_id) REFERENCES fans(id), FOREIGN KEY (ticket_id) REFERENCES tickets(id));

CREATE TABLE resale_listings (id INTEGER PRIMARY KEY, ticket_id TEXT NOT NULL UNIQUE, price REAL NOT NULL, listed_at TEXT NOT NULL, FOREIGN KEY (ticket_id) REFERENCES tickets(id));
