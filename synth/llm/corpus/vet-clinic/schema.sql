CREATE TABLE owners (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE pets (id TEXT PRIMARY KEY, owner_id TEXT NOT NULL REFERENCES owners(id), name TEXT NOT NULL, species TEXT NOT NULL CHECK (species IN ('dog','cat','rabbit')), UNIQUE (owner_id, name));

CREATE TABLE vets (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, species TEXT NOT NULL);

CREATE TABLE slots (id TEXT PRIMARY KEY, vet_id TEXT NOT NULL REFERENCES vets(id), starts_at TEXT NOT NULL, pet_id TEXT REFERENCES pets(id), reason TEXT, UNIQUE (vet_id, starts_at));

CREATE TABLE prescriptions (id INTEGER PRIMARY KEY, pet_id TEXT NOT NULL REFERENCES pets(id), medication TEXT NOT NULL, refills_left INTEGER NOT NULL CHECK (refills_left >= 0), last_filled TEXT NOT NULL);
