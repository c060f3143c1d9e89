CREATE TABLE members (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, balance REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('active','suspended')));

CREATE TABLE stations (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, capacity INTEGER NOT NULL CHECK (capacity > 0));

CREATE TABLE bikes (id INTEGER PRIMARY KEY, label TEXT NOT NULL UNIQUE, kind TEXT NOT NULL CHECK (kind IN ('classic','electric')), status TEXT NOT NULL CHECK (status IN ('docked','rented','damaged')), station_id TEXT REFERENCES stations(id));

CREATE TABLE rides (id INTEGER PRIMARY KEY, member_id TEXT NOT NULL REFERENCES members(id), bike_id INTEGER NOT NULL REFERENCES bikes(id), start_station_id TEXT NOT NULL REFERENCES stations(id), end_station_id TEXT REFERENCES stations(id), started_at TEXT NOT NULL, ended_at TEXT, fare REAL, status TEXT NOT NULL CHECK (status IN ('active','completed')));

CREATE TABLE damage_reports (id INTEGER PRIMARY KEY, bike_id INTEGER NOT NULL REFERENCES bikes(id), member_id TEXT NOT NULL REFERENCES members(id), description TEXT NOT NULL, reported_at TEXT NOT NULL);

CREATE INDEX rides_member ON rides(member_id);

CREATE INDEX bikes_station ON bikes(station_id);
