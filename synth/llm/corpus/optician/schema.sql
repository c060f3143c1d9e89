CREATE TABLE patients (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, date_of_birth TEXT NOT NULL, diabetes INTEGER NOT NULL DEFAULT 0 CHECK (diabetes IN (0,1)), referral INTEGER NOT NULL DEFAULT 0 CHECK (referral IN (0,1)), guardian_id TEXT, FOREIGN KEY (guardian_id) REFERENCES patients(id));

CREATE TABLE branches (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE);

CREATE TABLE slots (id TEXT PRIMARY KEY, branch_id TEXT NOT NULL, starts_at TEXT NOT NULL, FOREIGN KEY (branch_id) REFERENCES branches(id));

CREATE TABLE appointments (id INTEGER PRIMARY KEY, patient_id TEXT NOT NULL, slot_id TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('routine','referral')), status TEXT NOT NULL CHECK (status IN ('booked','completed','cancelled')), price REAL NOT NULL, paid INTEGER NOT NULL DEFAULT 0 CHECK (paid IN (0,1)), FOREIGN KEY (patient_id) REFERENCES patients(id), FOREIGN KEY (slot_id) REFERENCES slots(id));

CREATE TABLE prescriptions (id TEXT PRIMARY KEY, patient_id TEXT NOT NULL, issued_on TEXT NOT NULL, right_eye TEXT NOT NULL, left_eye TEXT NOT NULL, FOREIGN KEY (patient_id) REFERENCES patients(id));

CREATE TABLE frames (id TEXT PRIMARY KEY, model TEXT NOT NULL, range_name TEXT NOT NULL, colour TEXT NOT NULL, price REAL NOT NULL, stock INTEGER NOT NULL CHECK (stock >= 0));

CREATE TABLE addons (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, price REAL NOT NULL);

CREATE TABLE orders (id INTEGER PRIMARY KEY, patient_id TEXT NOT NULL, prescription_id TEXT NOT NULL, frame_id TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('pending','sent_to_lab','collected','cancelled')), voucher REAL NOT NULL DEFAULT 0, total REAL NOT NULL, paid INTEGER NOT NULL DEFAULT 0 CHECK (paid IN (0,1)), created_at TEXT NOT NULL, FOREIGN KEY (patient_id) REFERENCES patients(id), FOREIGN KEY (prescription_id) REFERENCES prescriptions(id), FOREIGN KEY (frame_id) REFERENCES frames(id));

CREATE TABLE order_addons (order_id INTEGER NOT NULL, addon_id TEXT NOT NULL, price REAL NOT NULL, PRIMARY KEY (order_id, addon_id), FOREIGN KEY (order_id) REFERENCES orders(id), FOREIGN KEY (addon_id) REFERENCES addons(id));
