CREATE TABLE trains (id TEXT PRIMARY KEY, service TEXT NOT NULL, origin TEXT NOT NULL, destination TEXT NOT NULL, departs_at TEXT NOT NULL, arrives_at TEXT NOT NULL, bike_spaces INTEGER NOT NULL DEFAULT 4, delay_minutes INTEGER);

CREATE TABLE coaches (id TEXT PRIMARY KEY, train_id TEXT NOT NULL, letter TEXT NOT NULL, class TEXT NOT NULL CHECK (class IN ('standard','first')), quiet INTEGER NOT NULL DEFAULT 0 CHECK (quiet IN (0,1)), FOREIGN KEY (train_id) REFERENCES trains(id));

CREATE TABLE seats (id TEXT PRIMARY KEY, coach_id TEXT NOT NULL, number INTEGER NOT NULL, row_no INTEGER NOT NULL, position TEXT NOT NULL CHECK (position IN ('window','aisle')), FOREIGN KEY (coach_id) REFERENCES coaches(id));

CREATE TABLE bookings (ref TEXT PRIMARY KEY, surname TEXT NOT NULL, lead_name TEXT NOT NULL, email TEXT NOT NULL);

CREATE TABLE tickets (id TEXT PRIMARY KEY, booking_ref TEXT NOT NULL, passenger TEXT NOT NULL, class TEXT NOT NULL CHECK (class IN ('standard','first')), flexibility TEXT NOT NULL CHECK (flexibility IN ('flexible','semi_flexible','advance')), price REAL NOT NULL, train_id TEXT NOT NULL, FOREIGN KEY (booking_ref) REFERENCES bookings(ref), FOREIGN KEY (train_id) REFERENCES trains(id));

CREATE TABLE reservations (id TEXT PRIMARY KEY, ticket_id TEXT NOT NULL, train_id TEXT NOT NULL, seat_id TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('active','cancelled')), FOREIGN KEY (ticket_id) REFERENCES tickets(id), FOREIGN KEY (train_id) REFERENCES trains(id), FOREIGN KEY (seat_id) REFERENCES seats(id));

CREATE UNIQUE INDEX reservations_one_per_seat ON reservations (train_id, seat_id) WHERE status = 'active';

CREATE TABLE bike_reservations (id TEXT PRIMARY KEY, ticket_id TEXT NOT NULL, train_id TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('active','cancelled')), FOREIGN KEY (ticket_id) REFERENCES tickets(id), FOREIGN KEY (train_id) REFERENCES trains(id));

CREATE TABLE charges (id INTEGER PRIMARY KEY, booking_ref TEXT NOT NULL, ticket_id TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('change_fee','upgrade')), amount REAL NOT NULL, created_at TEXT NOT NULL, FOREIGN KEY (booking_ref) REFERENCES bookings(ref), FOREIGN KEY (ticket_id) REFERENCES tickets(id));

CREATE TABLE compensation_claims (id TEXT PRIMARY KEY, ticket_id TEXT NOT NULL UNIQUE, delay_minutes INTEGER NOT NULL, percent INTEGER NOT NULL, amount REAL NOT NULL, filed_at TEXT NOT NULL, FOREIGN KEY (ticket_id) REFERENCES tickets(id));
