CREATE TABLE students (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, language TEXT NOT NULL, level TEXT NOT NULL CHECK (level IN ('A1','A2','B1','B2','C1')), credits INTEGER NOT NULL CHECK (credits >= 0));

CREATE TABLE tutors (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, language TEXT NOT NULL, min_level TEXT NOT NULL, max_level TEXT NOT NULL, rating REAL NOT NULL);

CREATE TABLE availability (id INTEGER PRIMARY KEY, tutor_id TEXT NOT NULL, starts_at TEXT NOT NULL, ends_at TEXT NOT NULL, FOREIGN KEY (tutor_id) REFERENCES tutors(id));

CREATE TABLE credit_packs (id TEXT PRIMARY KEY, credits INTEGER NOT NULL, price REAL NOT NULL);

CREATE TABLE purchases (id INTEGER PRIMARY KEY, student_id TEXT NOT NULL, pack_id TEXT NOT NULL, credits INTEGER NOT NULL, price REAL NOT NULL, purchased_at TEXT NOT NULL, FOREIGN KEY (student_id) REFERENCES students(id), FOREIGN KEY (pack_id) REFERENCES credit_packs(id));

CREATE TABLE lessons (id TEXT PRIMARY KEY, student_id TEXT NOT NULL, tutor_id TEXT NOT NULL, starts_at TEXT NOT NULL, minutes INTEGER NOT NULL CHECK (minutes IN (30,60)), credits INTEGER NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked','completed','cancelled')), credits_returned INTEGER NOT NULL DEFAULT 0, FOREIGN KEY (student_id) REFERENCES students(id), FOREIGN KEY (tutor_id) REFERENCES tutors(id));

CREATE TABLE ratings (lesson_id TEXT PRIMARY KEY, stars INTEGER NOT NULL CHECK (stars BETWEEN 1 AND 5), rated_at TEXT NOT NULL, FOREIGN KEY (lesson_id) REFERENCES lessons(id));
