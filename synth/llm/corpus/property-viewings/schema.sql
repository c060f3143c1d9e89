CREATE TABLE buyers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, date_of_birth TEXT NOT NULL, phone TEXT NOT NULL);

CREATE TABLE properties (id TEXT PRIMARY KEY, address TEXT NOT NULL UNIQUE, asking_price INTEGER NOT NULL CHECK (asking_price > 0), bedrooms INTEGER NOT NULL, status TEXT NOT NULL CHECK (status IN ('listed','under_offer','sold')));

CREATE TABLE viewing_slots (id TEXT PRIMARY KEY, property_id TEXT NOT NULL REFERENCES properties(id), starts_at TEXT NOT NULL, agent TEXT NOT NULL, buyer_id TEXT REFERENCES buyers(id), booked_at TEXT, UNIQUE (property_id, starts_at));

CREATE TABLE past_viewings (id INTEGER PRIMARY KEY, property_id TEXT NOT NULL REFERENCES properties(id), buyer_id TEXT NOT NULL REFERENCES buyers(id), viewed_on TEXT NOT NULL);

CREATE TABLE offers (id INTEGER PRIMARY KEY, property_id TEXT NOT NULL REFERENCES properties(id), buyer_id TEXT NOT NULL REFERENCES buyers(id), amount INTEGER NOT NULL CHECK (amount > 0), status TEXT NOT NULL CHECK (status IN ('open','withdrawn','accepted','rejected')), made_at TEXT NOT NULL);
