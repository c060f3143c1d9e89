CREATE TABLE students (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE halls (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE);

CREATE TABLE terms (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, starts_on TEXT NOT NULL, ends_on TEXT NOT NULL);

CREATE TABLE rooms (id TEXT PRIMARY KEY, hall_id TEXT NOT NULL, room_type TEXT NOT NULL CHECK (room_type IN ('single', 'double', 'ensuite')), rent_per_term REAL NOT NULL CHECK (rent_per_term > 0), FOREIGN KEY (hall_id) REFERENCES halls(id));

CREATE TABLE allocations (id INTEGER PRIMARY KEY, student_id TEXT NOT NULL, room_id TEXT NOT NULL, term_id TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('active', 'cancelled')), applied_at TEXT NOT NULL, cancelled_at TEXT, FOREIGN KEY (student_id) REFERENCES students(id), FOREIGN KEY (room_id) REFERENCES rooms(id), FOREIGN KEY (term_id) REFERENCES terms(id));

CREATE TABLE maintenance_requests (id INTEGER PRIMARY KEY, student_id TEXT NOT NULL, room_id TEXT NOT NULL, category TEXT NOT NULL CHECK (category IN ('plumbing', 'electrical', 'heating', 'other')), priority TEXT NOT NULL CHECK (priority IN ('normal', 'urgent')), description TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('open', 'resolved')), reported_at TEXT NOT NULL, FOREIGN KEY (student_id) REFERENCES students(id), FOREIGN KEY (room_id) REFERENCES rooms(id));

CREATE TABLE rent_charges (id TEXT PRIMARY KEY, student_id TEXT NOT NULL, term_id TEXT NOT NULL, amount REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('paid', 'unpaid')), due_on TEXT NOT NULL, FOREIGN KEY (student_id) REFERENCES students(id), FOREIGN KEY (term_id) REFERENCES terms(id));

CREATE INDEX allocations_by_student ON allocations(student_id);
