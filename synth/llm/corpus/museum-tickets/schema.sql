CREATE TABLE visitors (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE memberships (id TEXT PRIMARY KEY, visitor_id TEXT NOT NULL, tier TEXT NOT NULL, annual_fee REAL NOT NULL, expires_on TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('active','expired')), FOREIGN KEY (visitor_id) REFERENCES visitors(id));

CREATE TABLE exhibitions (id TEXT PRIMARY KEY, title TEXT NOT NULL UNIQUE, adult_price REAL NOT NULL);

CREATE TABLE slots (id TEXT PRIMARY KEY, exhibition_id TEXT NOT NULL, visit_date TEXT NOT NULL, start_time TEXT NOT NULL, capacity INTEGER NOT NULL CHECK (capacity >= 0), booked INTEGER NOT NULL CHECK (booked >= 0), UNIQUE (exhibition_id, visit_date, start_time), FOREIGN KEY (exhibition_id) REFERENCES exhibitions(id));

CREATE TABLE orders (id TEXT PRIMARY KEY, visitor_id TEXT NOT NULL, created_at TEXT NOT NULL, total REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('paid','refunded')), FOREIGN KEY (visitor_id) REFERENCES visitors(id));

CREATE TABLE tickets (id TEXT PRIMARY KEY, order_id TEXT NOT NULL, slot_id TEXT NOT NULL, ticket_type TEXT NOT NULL CHECK (ticket_type IN ('adult','member','concession')), price REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('valid','refunded')), FOREIGN KEY (order_id) REFERENCES orders(id), FOREIGN KEY (slot_id) REFERENCES slots(id));

CREATE TABLE membership_renewals (id INTEGER PRIMARY KEY, membership_id TEXT NOT NULL, renewed_at TEXT NOT NULL, new_expires_on TEXT NOT NULL, fee REAL NOT NULL, FOREIGN KEY (membership_id) REFERENCES memberships(id));

CREATE INDEX idx_tickets_order ON tickets(order_id);
