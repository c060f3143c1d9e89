CREATE TABLE plans (id TEXT PRIMARY KEY, name TEXT NOT NULL, annual_max REAL NOT NULL, treatment_share REAL NOT NULL CHECK (treatment_share >= 0 AND treatment_share <= 1));

CREATE TABLE accounts (id TEXT PRIMARY KEY, holder_name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, card_last4 TEXT NOT NULL);

CREATE TABLE patients (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, name TEXT NOT NULL, relation TEXT NOT NULL CHECK (relation IN ('holder','spouse','child')), plan_id TEXT, last_cleaning TEXT, last_exam TEXT, FOREIGN KEY (account_id) REFERENCES accounts(id), FOREIGN KEY (plan_id) REFERENCES plans(id));

CREATE TABLE providers (id TEXT PRIMARY KEY, name TEXT NOT NULL, role TEXT NOT NULL CHECK (role IN ('dentist','hygienist')));

CREATE TABLE slots (id TEXT PRIMARY KEY, provider_id TEXT NOT NULL, start TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('open','booked')), UNIQUE (provider_id, start), FOREIGN KEY (provider_id) REFERENCES providers(id));

CREATE TABLE appointments (id TEXT PRIMARY KEY, patient_id TEXT NOT NULL, provider_id TEXT NOT NULL, start TEXT NOT NULL, type TEXT NOT NULL CHECK (type IN ('checkup','cleaning','treatment')), treatment TEXT, status TEXT NOT NULL CHECK (status IN ('booked','cancelled','completed')), cancelled_at TEXT, FOREIGN KEY (patient_id) REFERENCES patients(id), FOREIGN KEY (provider_id) REFERENCES providers(id));

CREATE TABLE charges (id TEXT PRIMARY KEY, patient_id TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('treatment','late_cancellation')), description TEXT NOT NULL, date TEXT NOT NULL, amount REAL NOT NULL, insurance_share REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('unpaid','paid')), paid_at TEXT, FOREIGN KEY (patient_id) REFERENCES patients(id));

CREATE INDEX appointments_patient ON appointments(patient_id, start);

CREATE INDEX charges_patient ON charges(patient_id, status);
