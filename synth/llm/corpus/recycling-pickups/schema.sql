CREATE TABLE zones (id TEXT PRIMARY KEY, name TEXT NOT NULL);

CREATE TABLE residents (id TEXT PRIMARY KEY, name TEXT NOT NULL, street_address TEXT NOT NULL, zone_id TEXT NOT NULL, FOREIGN KEY (zone_id) REFERENCES zones(id));

CREATE TABLE collection_days (id TEXT PRIMARY KEY, zone_id TEXT NOT NULL, day TEXT NOT NULL, capacity INTEGER NOT NULL, UNIQUE (zone_id, day), FOREIGN KEY (zone_id) REFERENCES zones(id));

CREATE TABLE item_types (code TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, refrigerant INTEGER NOT NULL CHECK (refrigerant IN (0,1)), fee REAL NOT NULL);

CREATE TABLE collections (id TEXT PRIMARY KEY, resident_id TEXT NOT NULL, day_id TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked','cancelled','completed')), created_at TEXT NOT NULL, FOREIGN KEY (resident_id) REFERENCES residents(id), FOREIGN KEY (day_id) REFERENCES collection_days(id));

CREATE TABLE collection_items (id INTEGER PRIMARY KEY, collection_id TEXT NOT NULL, item_code TEXT NOT NULL, fee REAL NOT NULL, FOREIGN KEY (collection_id) REFERENCES collections(id), FOREIGN KEY (item_code) REFERENCES item_types(code));

CREATE TABLE bin_orders (id INTEGER PRIMARY KEY, resident_id TEXT NOT NULL, bin_type TEXT NOT NULL CHECK (bin_type IN ('recycling','garden','general')), fee REAL NOT NULL, paid INTEGER NOT NULL DEFAULT 0 CHECK (paid IN (0,1)), ordered_on TEXT NOT NULL, FOREIGN KEY (resident_id) REFERENCES residents(id));

CREATE TABLE missed_pickups (id INTEGER PRIMARY KEY, resident_id TEXT NOT NULL, stream TEXT NOT NULL CHECK (stream IN ('recycling','garden','general')), missed_on TEXT NOT NULL, reported_at TEXT NOT NULL, return_visit_on TEXT NOT NULL, FOREIGN KEY (resident_id) REFERENCES residents(id));
