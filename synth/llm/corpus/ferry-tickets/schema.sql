CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, surname TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE routes (id TEXT PRIMARY KEY, origin TEXT NOT NULL, destination TEXT NOT NULL, UNIQUE (origin, destination));

CREATE TABLE sailings (id TEXT PRIMARY KEY, route_id TEXT NOT NULL, departs_at TEXT NOT NULL, passenger_capacity INTEGER NOT NULL, passengers_booked INTEGER NOT NULL, car_capacity INTEGER NOT NULL, cars_booked INTEGER NOT NULL, cabins_total INTEGER NOT NULL, cabins_booked INTEGER NOT NULL, passenger_fare REAL NOT NULL, car_fare REAL NOT NULL, cabin_fare REAL NOT NULL, UNIQUE (route_id, departs_at), FOREIGN KEY (route_id) REFERENCES routes(id));

CREATE TABLE bookings (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, sailing_id TEXT NOT NULL, passengers INTEGER NOT NULL CHECK (passengers > 0), vehicle_reg TEXT, cabin INTEGER NOT NULL CHECK (cabin IN (0,1)), change_fees REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked','cancelled')), refund REAL NOT NULL, created_at TEXT NOT NULL, FOREIGN KEY (customer_id) REFERENCES customers(id), FOREIGN KEY (sailing_id) REFERENCES sailings(id));
