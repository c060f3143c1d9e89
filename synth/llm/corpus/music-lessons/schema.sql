CREATE TABLE students (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE instruments (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE);

CREATE TABLE teachers (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, instrument_id TEXT NOT NULL, FOREIGN KEY (instrument_id) REFERENCES instruments(id));

CREATE TABLE teacher_slots (id TEXT PRIMARY KEY, teacher_id TEXT NOT NULL, starts_at TEXT NOT NULL, is_open INTEGER NOT NULL CHECK (is_open IN (0,1)), UNIQUE (teacher_id, starts_at), FOREIGN KEY (teacher_id) REFERENCES teachers(id));

CREATE TABLE packs (id TEXT PRIMARY KEY, instrument_id TEXT NOT NULL, lessons INTEGER NOT NULL, price REAL NOT NULL, UNIQUE (instrument_id, lessons), FOREIGN KEY (instrument_id) REFERENCES instruments(id));

CREATE TABLE credits (id INTEGER PRIMARY KEY, student_id TEXT NOT NULL, instrument_id TEXT NOT NULL, remaining INTEGER NOT NULL CHECK (remaining >= 0), UNIQUE (student_id, instrument_id), FOREIGN KEY (student_id) REFERENCES students(id), FOREIGN KEY (instrument_id) REFERENCES instruments(id));

CREATE TABLE purchases (id INTEGER PRIMARY KEY, student_id TEXT NOT NULL, pack_id TEXT NOT NULL, purchased_at TEXT NOT NULL, price REAL NOT NULL, FOREIGN KEY (student_id) REFERENCES students(id), FOREIGN KEY (pack_id) REFERENCES packs(id));

CREATE TABLE lessons (id TEXT PRIMARY KEY, student_id TEXT NOT NULL, teacher_id TEXT NOT NULL, starts_at TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked','cancelled','late_cancelled','completed')), created_at TEXT NOT NULL, FOREIGN KEY (student_id) REFERENCES students(id), FOREIGN KEY (teacher_id) REFERENCES teachers(id));
