CREATE TABLE adopters (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE animals (id TEXT PRIMARY KEY, name TEXT NOT NULL, species TEXT NOT NULL CHECK (species IN ('dog','cat','rabbit')), age_years INTEGER NOT NULL, fee REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('available','on_hold','adopted')));

CREATE TABLE visit_slots (id TEXT PRIMARY KEY, animal_id TEXT NOT NULL, starts_at TEXT NOT NULL, is_open INTEGER NOT NULL CHECK (is_open IN (0,1)), UNIQUE (animal_id, starts_at), FOREIGN KEY (animal_id) REFERENCES animals(id));

CREATE TABLE visits (id TEXT PRIMARY KEY, adopter_id TEXT NOT NULL, animal_id TEXT NOT NULL, visit_at TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked','completed','cancelled')), FOREIGN KEY (adopter_id) REFERENCES adopters(id), FOREIGN KEY (animal_id) REFERENCES animals(id));

CREATE TABLE holds (id INTEGER PRIMARY KEY, adopter_id TEXT NOT NULL, animal_id TEXT NOT NULL, placed_at TEXT NOT NULL, expires_at TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('active','released','expired')), FOREIGN KEY (adopter_id) REFERENCES adopters(id), FOREIGN KEY (animal_id) REFERENCES animals(id));

CREATE TABLE applications (id TEXT PRIMARY KEY, adopter_id TEXT NOT NULL, animal_id TEXT NOT NULL, submitted_at TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('submitted','approved','rejected','withdrawn')), FOREIGN KEY (adopter_id) REFERENCES adopters(id), FOREIGN KEY (animal_id) REFERENCES animals(id));
