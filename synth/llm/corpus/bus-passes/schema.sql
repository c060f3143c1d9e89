CREATE TABLE riders (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE concessions (id TEXT PRIMARY KEY, rider_id TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('student','senior')), verified INTEGER NOT NULL CHECK (verified IN (0,1)), expires_on TEXT NOT NULL, FOREIGN KEY (rider_id) REFERENCES riders(id));

CREATE TABLE cards (id TEXT PRIMARY KEY, rider_id TEXT NOT NULL, number TEXT NOT NULL UNIQUE, balance REAL NOT NULL CHECK (balance >= 0), status TEXT NOT NULL CHECK (status IN ('active','blocked')), blocked_reason TEXT CHECK (blocked_reason IN ('lost','stolen')), blocked_at TEXT, issued_on TEXT NOT NULL, FOREIGN KEY (rider_id) REFERENCES riders(id));

CREATE TABLE fares (id TEXT PRIMARY KEY, pass_type TEXT NOT NULL CHECK (pass_type IN ('weekly','monthly')), zones TEXT NOT NULL CHECK (zones IN ('1','1-2','1-3')), adult_price REAL NOT NULL, concession_price REAL NOT NULL, UNIQUE (pass_type, zones));

CREATE TABLE passes (id TEXT PRIMARY KEY, card_id TEXT NOT NULL, pass_type TEXT NOT NULL CHECK (pass_type IN ('weekly','monthly')), zones TEXT NOT NULL CHECK (zones IN ('1','1-2','1-3')), start_date TEXT NOT NULL, end_date TEXT NOT NULL, price_paid REAL NOT NULL, concession INTEGER NOT NULL DEFAULT 0 CHECK (concession IN (0,1)), trips_used INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL CHECK (status IN ('active','refunded')), FOREIGN KEY (card_id) REFERENCES cards(id));

CREATE INDEX passes_card ON passes (card_id, start_date);

CREATE TABLE trips (id TEXT PRIMARY KEY, card_id TEXT NOT NULL, zone INTEGER NOT NULL CHECK (zone IN (1,2,3)), tapped_at TEXT NOT NULL, fare_charged REAL NOT NULL, pass_id TEXT, FOREIGN KEY (card_id) REFERENCES cards(id), FOREIGN KEY (pass_id) REFERENCES passes(id));

CREATE INDEX trips_card ON trips (card_id, tapped_at);

CREATE TABLE card_transactions (id INTEGER PRIMARY KEY, card_id TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('topup','pass_purchase','pass_upgrade','pass_refund','replacement_fee','transfer_in','transfer_out')), amount REAL NOT NULL, created_at TEXT NOT NULL, pass_id TEXT, FOREIGN KEY (card_id) REFERENCES cards(id), FOREIGN KEY (pass_id) REFERENCES passes(id));

CREATE TABLE replacements (id TEXT PRIMARY KEY, rider_id TEXT NOT NULL, old_card_id TEXT NOT NULL, new_card_id TEXT NOT NULL, fee REAL NOT NULL, replaced_at TEXT NOT NULL, FOREIGN KEY (rider_id) REFERENCES riders(id), FOREIGN KEY (old_card_id) REFERENCES cards(id), FOREIGN KEY (new_card_id) REFERENCES cards(id));
