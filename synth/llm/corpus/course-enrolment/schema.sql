CREATE TABLE students (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, credit_limit INTEGER NOT NULL CHECK (credit_limit > 0));

CREATE TABLE courses (code TEXT PRIMARY KEY, title TEXT NOT NULL, credits INTEGER NOT NULL CHECK (credits > 0), prerequisite_code TEXT REFERENCES courses(code));

CREATE TABLE sections (id TEXT PRIMARY KEY, course_code TEXT NOT NULL REFERENCES courses(code), term TEXT NOT NULL, instructor TEXT NOT NULL, seats INTEGER NOT NULL CHECK (seats >= 0), schedule TEXT NOT NULL);

CREATE TABLE enrolments (id INTEGER PRIMARY KEY, student_id TEXT NOT NULL REFERENCES students(id), section_id TEXT NOT NULL REFERENCES sections(id), status TEXT NOT NULL CHECK (status IN ('enrolled','dropped','completed')), grade TEXT, enrolled_at TEXT NOT NULL, dropped_at TEXT);

CREATE INDEX enrolments_student ON enrolments(student_id);

CREATE INDEX enrolments_section ON enrolments(section_id);
