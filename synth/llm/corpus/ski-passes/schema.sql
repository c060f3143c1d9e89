CREATE TABLE accounts (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE skiers (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, name TEXT NOT NULL, birth_date TEXT NOT NULL, level TEXT NOT NULL CHECK (level IN ('beginner','intermediate','advanced')), relation TEXT NOT NULL CHECK (relation IN ('self','partner','child','parent')), FOREIGN KEY (account_id) REFERENCES accounts(id));

CREATE TABLE resort_days (day TEXT PRIMARY KEY, is_open INTEGER NOT NULL CHECK (is_open IN (0,1)), note TEXT NOT NULL DEFAULT '');

CREATE TABLE pass_prices (pass_type TEXT NOT NULL CHECK (pass_type IN ('day','3-day','5-day')), category TEXT NOT NULL CHECK (category IN ('adult','child','senior')), price REAL NOT NULL, PRIMARY KEY (pass_type, category));

CREATE TABLE passes (id TEXT PRIMARY KEY, skier_id TEXT NOT NULL, pass_type TEXT NOT NULL, category TEXT NOT NULL, start_date TEXT NOT NULL, days INTEGER NOT NULL, price REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('active','cancelled')), purchased_at TEXT NOT NULL, FOREIGN KEY (skier_id) REFERENCES skiers(id), FOREIGN KEY (pass_type, category) REFERENCES pass_prices(pass_type, category));

CREATE TABLE classes (id TEXT PRIMARY KEY, starts_at TEXT NOT NULL, level TEXT NOT NULL CHECK (level IN ('beginner','intermediate','advanced')), capacity INTEGER NOT NULL, price REAL NOT NULL);

CREATE TABLE lesson_bookings (id TEXT PRIMARY KEY, class_id TEXT NOT NULL, skier_id TEXT NOT NULL, price REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked','cancelled')), refund REAL NOT NULL DEFAULT 0, booked_at TEXT NOT NULL, FOREIGN KEY (class_id) REFERENCES classes(id), FOREIGN KEY (skier_id) REFERENCES skiers(id));

CREATE INDEX classes_by_start ON classes(starts_at, level);
