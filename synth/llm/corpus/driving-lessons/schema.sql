CREATE TABLE learners (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, transmission TEXT NOT NULL CHECK (transmission IN ('manual', 'automatic')), credits INTEGER NOT NULL CHECK (credits >= 0), completed_lessons INTEGER NOT NULL CHECK (completed_lessons >= 0));

CREATE TABLE instructors (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, teaches_manual INTEGER NOT NULL CHECK (teaches_manual IN (0, 1)), teaches_automatic INTEGER NOT NULL CHECK (teaches_automatic IN (0, 1)));

CREATE TABLE lesson_blocks (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, lessons INTEGER NOT NULL CHECK (lessons > 0), price REAL NOT NULL CHECK (price > 0));

CREATE TABLE lessons (id INTEGER PRIMARY KEY, learner_id TEXT NOT NULL, instructor_id TEXT NOT NULL, starts_at TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked', 'completed', 'cancelled', 'late_cancelled')), created_at TEXT NOT NULL, FOREIGN KEY (learner_id) REFERENCES learners(id), FOREIGN KEY (instructor_id) REFERENCES instructors(id));

CREATE TABLE purchases (id INTEGER PRIMARY KEY, learner_id TEXT NOT NULL, block_id TEXT NOT NULL, price REAL NOT NULL, purchased_at TEXT NOT NULL, FOREIGN KEY (learner_id) REFERENCES learners(id), FOREIGN KEY (block_id) REFERENCES lesson_blocks(id));

CREATE TABLE tests (id INTEGER PRIMARY KEY, learner_id TEXT NOT NULL, test_date TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked', 'passed', 'failed', 'cancelled')), FOREIGN KEY (learner_id) REFERENCES learners(id));
