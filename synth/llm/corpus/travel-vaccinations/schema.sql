CREATE TABLE patients (id TEXT PRIMARY KEY, name TEXT NOT NULL, date_of_birth TEXT NOT NULL);

CREATE TABLE vaccines (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, doses INTEGER NOT NULL CHECK (doses > 0), min_interval_days INTEGER NOT NULL, live INTEGER NOT NULL CHECK (live IN (0,1)));

CREATE TABLE clinics (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE);

CREATE TABLE slots (id TEXT PRIMARY KEY, clinic_id TEXT NOT NULL, start TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('open','booked')), UNIQUE (clinic_id, start), FOREIGN KEY (clinic_id) REFERENCES clinics(id));

CREATE TABLE appointments (id TEXT PRIMARY KEY, patient_id TEXT NOT NULL, clinic_id TEXT NOT NULL, vaccine_id TEXT NOT NULL, dose_number INTEGER NOT NULL, start TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked','cancelled','completed')), cancelled_at TEXT, FOREIGN KEY (patient_id) REFERENCES patients(id), FOREIGN KEY (clinic_id) REFERENCES clinics(id), FOREIGN KEY (vaccine_id) REFERENCES vaccines(id));

CREATE TABLE doses (id INTEGER PRIMARY KEY, patient_id TEXT NOT NULL, vaccine_id TEXT NOT NULL, dose_number INTEGER NOT NULL, given_on TEXT NOT NULL, UNIQUE (patient_id, vaccine_id, dose_number), FOREIGN KEY (patient_id) REFERENCES patients(id), FOREIGN KEY (vaccine_id) REFERENCES vaccines(id));

CREATE TABLE destinations (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE);

CREATE TABLE destination_vaccines (destination_id TEXT NOT NULL, vaccine_id TEXT NOT NULL, PRIMARY KEY (destination_id, vaccine_id), FOREIGN KEY (destination_id) REFERENCES destinations(id), FOREIGN KEY (vaccine_id) REFERENCES vaccines(id));

CREATE TABLE trips (id INTEGER PRIMARY KEY, patient_id TEXT NOT NULL, destination_id TEXT NOT NULL, departure TEXT NOT NULL, FOREIGN KEY (patient_id) REFERENCES patients(id), FOREIGN KEY (destination_id) REFERENCES destinations(id));

CREATE TABLE fees (id INTEGER PRIMARY KEY, patient_id TEXT NOT NULL, description TEXT NOT NULL, amount REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('unpaid','paid')), created_at TEXT NOT NULL, FOREIGN KEY (patient_id) REFERENCES patients(id));
