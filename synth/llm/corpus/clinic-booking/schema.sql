CREATE TABLE patients (id TEXT PRIMARY KEY, name TEXT NOT NULL, date_of_birth TEXT NOT NULL, email TEXT NOT NULL UNIQUE, phone TEXT NOT NULL);

CREATE TABLE doctors (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, specialty TEXT NOT NULL);

CREATE TABLE slots (id TEXT PRIMARY KEY, doctor_id TEXT NOT NULL REFERENCES doctors(id), starts_at TEXT NOT NULL, minutes INTEGER NOT NULL CHECK (minutes > 0), status TEXT NOT NULL CHECK (status IN ('open','booked','blocked')), UNIQUE (doctor_id, starts_at));

CREATE TABLE appointments (id INTEGER PRIMARY KEY, patient_id TEXT NOT NULL REFERENCES patients(id), slot_id TEXT NOT NULL REFERENCES slots(id), status TEXT NOT NULL CHECK (status IN ('booked','cancelled','completed')), reason TEXT NOT NULL, booked_at TEXT NOT NULL, cancelled_at TEXT);

CREATE TABLE invoices (id TEXT PRIMARY KEY, patient_id TEXT NOT NULL REFERENCES patients(id), appointment_id INTEGER NOT NULL REFERENCES appointments(id), amount REAL NOT NULL CHECK (amount >= 0), status TEXT NOT NULL CHECK (status IN ('unpaid','paid')), issued_at TEXT NOT NULL);

CREATE INDEX appointments_patient ON appointments(patient_id);
