CREATE TABLE owners (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE dogs (id TEXT PRIMARY KEY, owner_id TEXT NOT NULL, name TEXT NOT NULL, size TEXT NOT NULL CHECK (size IN ('small','medium','large')), rabies_valid_until TEXT NOT NULL, feeding_notes TEXT NOT NULL DEFAULT '', FOREIGN KEY (owner_id) REFERENCES owners(id));

CREATE TABLE kennels (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, size TEXT NOT NULL CHECK (size IN ('small','medium','large')), nightly_rate REAL NOT NULL);

CREATE TABLE stays (id TEXT PRIMARY KEY, dog_id TEXT NOT NULL, kennel_id TEXT NOT NULL, check_in TEXT NOT NULL, check_out TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked','cancelled','completed')), nightly_rate REAL NOT NULL, deposit REAL NOT NULL, deposit_refunded REAL NOT NULL DEFAULT 0, cancelled_at TEXT, CHECK (check_out > check_in), FOREIGN KEY (dog_id) REFERENCES dogs(id), FOREIGN KEY (kennel_id) REFERENCES kennels(id));

CREATE TABLE stay_extras (id INTEGER PRIMARY KEY, stay_id TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('walks','grooming')), price REAL NOT NULL, UNIQUE (stay_id, kind), FOREIGN KEY (stay_id) REFERENCES stays(id));

CREATE INDEX stays_kennel ON stays(kennel_id, check_in);

CREATE INDEX stays_dog ON stays(dog_id, check_in);
