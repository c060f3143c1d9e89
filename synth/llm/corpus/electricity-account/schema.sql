CREATE TABLE accounts (number TEXT PRIMARY KEY, holder TEXT NOT NULL, address TEXT NOT NULL, postcode TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('active','closed')));

CREATE TABLE meter_readings (id INTEGER PRIMARY KEY, account_number TEXT NOT NULL REFERENCES accounts(number), reading_kwh INTEGER NOT NULL CHECK (reading_kwh >= 0), read_at TEXT NOT NULL, source TEXT NOT NULL CHECK (source IN ('customer','estimate','engineer')));

CREATE TABLE payment_plans (account_number TEXT PRIMARY KEY REFERENCES accounts(number), monthly_amount REAL NOT NULL CHECK (monthly_amount > 0), payment_day INTEGER NOT NULL CHECK (payment_day BETWEEN 1 AND 28), status TEXT NOT NULL CHECK (status IN ('active','cancelled')), updated_at TEXT NOT NULL);

CREATE TABLE moves (id INTEGER PRIMARY KEY, account_number TEXT NOT NULL REFERENCES accounts(number), from_address TEXT NOT NULL, to_address TEXT NOT NULL, to_postcode TEXT NOT NULL, move_date TEXT NOT NULL, requested_at TEXT NOT NULL);

CREATE TABLE outages (id INTEGER PRIMARY KEY, account_number TEXT NOT NULL REFERENCES accounts(number), postcode TEXT NOT NULL, description TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('reported','resolved')), reported_at TEXT NOT NULL);
