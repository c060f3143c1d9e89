CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, phone TEXT NOT NULL);

CREATE TABLE crews (id TEXT PRIMARY KEY, leader_name TEXT NOT NULL, size INTEGER NOT NULL CHECK (size > 0));

CREATE TABLE crew_time_off (crew_id TEXT NOT NULL, day TEXT NOT NULL, PRIMARY KEY (crew_id, day), FOREIGN KEY (crew_id) REFERENCES crews(id));

CREATE TABLE home_rates (home_size TEXT PRIMARY KEY CHECK (home_size IN ('studio','1-bed','2-bed','3-bed','4-bed')), base_price REAL NOT NULL, per_km REAL NOT NULL, packing_price REAL NOT NULL);

CREATE TABLE box_prices (box_size TEXT PRIMARY KEY CHECK (box_size IN ('small','medium','large')), price REAL NOT NULL);

CREATE TABLE jobs (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, crew_id TEXT, move_date TEXT NOT NULL, home_size TEXT NOT NULL, distance_km REAL NOT NULL, packing INTEGER NOT NULL DEFAULT 0 CHECK (packing IN (0,1)), price REAL NOT NULL, fees REAL NOT NULL DEFAULT 0, deposit REAL NOT NULL, paid REAL NOT NULL DEFAULT 0, refunded REAL NOT NULL DEFAULT 0, status TEXT NOT NULL CHECK (status IN ('booked','completed','cancelled')), completed_on TEXT, FOREIGN KEY (customer_id) REFERENCES customers(id), FOREIGN KEY (crew_id) REFERENCES crews(id), FOREIGN KEY (home_size) REFERENCES home_rates(home_size));

CREATE TABLE job_boxes (job_id TEXT NOT NULL, box_size TEXT NOT NULL, quantity INTEGER NOT NULL CHECK (quantity >= 0), PRIMARY KEY (job_id, box_size), FOREIGN KEY (job_id) REFERENCES jobs(id), FOREIGN KEY (box_size) REFERENCES box_prices(box_size));

CREATE TABLE inventory_items (id TEXT PRIMARY KEY, job_id TEXT NOT NULL, name TEXT NOT NULL, FOREIGN KEY (job_id) REFERENCES jobs(id));

CREATE TABLE damage_claims (id INTEGER PRIMARY KEY, job_id TEXT NOT NULL, item_id TEXT NOT NULL, amount REAL NOT NULL CHECK (amount > 0), description TEXT NOT NULL, filed_at TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('open','approved','rejected')), FOREIGN KEY (job_id) REFERENCES jobs(id), FOREIGN KEY (item_id) REFERENCES inventory_items(id));

CREATE INDEX jobs_by_date ON jobs(move_date);
