CREATE TABLE clients (id TEXT PRIMARY KEY, name TEXT NOT NULL, phone TEXT NOT NULL, birth_date TEXT NOT NULL, loyalty_points INTEGER NOT NULL CHECK (loyalty_points >= 0));

CREATE TABLE stylists (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE);

CREATE TABLE services (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, duration_min INTEGER NOT NULL, price REAL NOT NULL);

CREATE TABLE stylist_services (stylist_id TEXT NOT NULL, service_id TEXT NOT NULL, PRIMARY KEY (stylist_id, service_id), FOREIGN KEY (stylist_id) REFERENCES stylists(id), FOREIGN KEY (service_id) REFERENCES services(id));

CREATE TABLE appointments (id TEXT PRIMARY KEY, client_id TEXT NOT NULL, stylist_id TEXT NOT NULL, starts_at TEXT NOT NULL, ends_at TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked','cancelled','completed')), discount REAL NOT NULL, cancel_fee REAL NOT NULL, FOREIGN KEY (client_id) REFERENCES clients(id), FOREIGN KEY (stylist_id) REFERENCES stylists(id));

CREATE TABLE appointment_services (id INTEGER PRIMARY KEY, appointment_id TEXT NOT NULL, service_id TEXT NOT NULL, FOREIGN KEY (appointment_id) REFERENCES appointments(id), FOREIGN KEY (service_id) REFERENCES services(id));
