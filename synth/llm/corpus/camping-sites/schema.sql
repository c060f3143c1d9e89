CREATE TABLE campers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE campgrounds (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE);

CREATE TABLE pitches (id TEXT PRIMARY KEY, campground_id TEXT NOT NULL, code TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('tent','caravan','cabin')), max_party INTEGER NOT NULL, max_vehicle_m REAL NOT NULL, has_electric INTEGER NOT NULL CHECK (has_electric IN (0,1)), nightly_rate REAL NOT NULL, UNIQUE (campground_id, code), FOREIGN KEY (campground_id) REFERENCES campgrounds(id));

CREATE TABLE extras (code TEXT PRIMARY KEY CHECK (code IN ('electric_hookup','firewood')), name TEXT NOT NULL, price REAL NOT NULL, per_night INTEGER NOT NULL CHECK (per_night IN (0,1)));

CREATE TABLE reservations (id TEXT PRIMARY KEY, camper_id TEXT NOT NULL, pitch_id TEXT NOT NULL, arrival TEXT NOT NULL, departure TEXT NOT NULL, party_size INTEGER NOT NULL, vehicle_m REAL NOT NULL DEFAULT 0, status TEXT NOT NULL CHECK (status IN ('booked','cancelled')), pitch_cost REAL NOT NULL, refund REAL NOT NULL DEFAULT 0, created_at TEXT NOT NULL, FOREIGN KEY (camper_id) REFERENCES campers(id), FOREIGN KEY (pitch_id) REFERENCES pitches(id));

CREATE TABLE reservation_extras (id INTEGER PRIMARY KEY, reservation_id TEXT NOT NULL, extra_code TEXT NOT NULL, quantity INTEGER NOT NULL CHECK (quantity > 0), cost REAL NOT NULL, FOREIGN KEY (reservation_id) REFERENCES reservations(id), FOREIGN KEY (extra_code) REFERENCES extras(code));

CREATE INDEX reservations_by_pitch ON reservations(pitch_id, arrival);
