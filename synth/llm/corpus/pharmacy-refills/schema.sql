CREATE TABLE branches (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE);

CREATE TABLE patients (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, home_branch_id TEXT NOT NULL, FOREIGN KEY (home_branch_id) REFERENCES branches(id));

CREATE TABLE prescriptions (id TEXT PRIMARY KEY, patient_id TEXT NOT NULL, drug_name TEXT NOT NULL, refills_remaining INTEGER NOT NULL CHECK (refills_remaining >= 0), days_supply INTEGER NOT NULL, next_refill_date TEXT NOT NULL, price REAL NOT NULL, insurance_covers REAL NOT NULL, FOREIGN KEY (patient_id) REFERENCES patients(id));

CREATE TABLE orders (id TEXT PRIMARY KEY, prescription_id TEXT NOT NULL, patient_id TEXT NOT NULL, branch_id TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('processing','ready','picked_up','cancelled')), price REAL NOT NULL, insurance_paid REAL NOT NULL, amount_due REAL NOT NULL, created_at TEXT NOT NULL, FOREIGN KEY (prescription_id) REFERENCES prescriptions(id), FOREIGN KEY (patient_id) REFERENCES patients(id), FOREIGN KEY (branch_id) REFERENCES branches(id));

CREATE INDEX idx_orders_patient ON orders(patient_id);
