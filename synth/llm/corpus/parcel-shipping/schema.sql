CREATE TABLE senders (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE services (code TEXT PRIMARY KEY CHECK (code IN ('standard','express')), base_price REAL NOT NULL, per_kg REAL NOT NULL, max_weight_kg REAL NOT NULL);

CREATE TABLE shipments (id INTEGER PRIMARY KEY, tracking TEXT NOT NULL UNIQUE, sender_id TEXT NOT NULL REFERENCES senders(id), service TEXT NOT NULL REFERENCES services(code), weight_kg REAL NOT NULL CHECK (weight_kg > 0), declared_value REAL NOT NULL CHECK (declared_value >= 0), price REAL NOT NULL, recipient_name TEXT NOT NULL, recipient_address TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('created','in_transit','delivered','returned')), created_at TEXT NOT NULL);

CREATE TABLE scans (id INTEGER PRIMARY KEY, shipment_id INTEGER NOT NULL REFERENCES shipments(id), location TEXT NOT NULL, event TEXT NOT NULL CHECK (event IN ('picked_up','hub','out_for_delivery','delivered','redirected')), scanned_at TEXT NOT NULL);

CREATE TABLE claims (id INTEGER PRIMARY KEY, shipment_id INTEGER NOT NULL UNIQUE REFERENCES shipments(id), kind TEXT NOT NULL CHECK (kind IN ('lost','damaged')), amount REAL NOT NULL CHECK (amount >= 0), status TEXT NOT NULL CHECK (status IN ('open','paid','rejected')), filed_at TEXT NOT NULL);

CREATE INDEX scans_shipment ON scans(shipment_id);
