CREATE TABLE categories (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, max_traders_per_market INTEGER NOT NULL DEFAULT 3);

CREATE TABLE traders (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, category_id TEXT NOT NULL, hardship_waiver INTEGER NOT NULL DEFAULT 0 CHECK (hardship_waiver IN (0,1)), strikes INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL CHECK (status IN ('active','suspended')), FOREIGN KEY (category_id) REFERENCES categories(id));

CREATE TABLE sites (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, fee_standard REAL NOT NULL, fee_power REAL NOT NULL);

CREATE TABLE stalls (site_id TEXT NOT NULL, stall_number INTEGER NOT NULL, has_power INTEGER NOT NULL CHECK (has_power IN (0,1)), PRIMARY KEY (site_id, stall_number), FOREIGN KEY (site_id) REFERENCES sites(id));

CREATE TABLE markets (id TEXT PRIMARY KEY, site_id TEXT NOT NULL, market_date TEXT NOT NULL, UNIQUE (site_id, market_date), FOREIGN KEY (site_id) REFERENCES sites(id));

CREATE TABLE bookings (id INTEGER PRIMARY KEY, trader_id TEXT NOT NULL, market_id TEXT NOT NULL, stall_number INTEGER NOT NULL, fee REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked','cancelled','attended','no_show')), booked_at TEXT NOT NULL, cancelled_at TEXT, refund REAL NOT NULL DEFAULT 0, FOREIGN KEY (trader_id) REFERENCES traders(id), FOREIGN KEY (market_id) REFERENCES markets(id));

CREATE INDEX idx_bookings_market ON bookings(market_id, stall_number);

CREATE INDEX idx_bookings_trader ON bookings(trader_id);
