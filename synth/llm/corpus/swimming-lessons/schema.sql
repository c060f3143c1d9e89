CREATE TABLE parents (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE children (id TEXT PRIMARY KEY, parent_id TEXT NOT NULL, name TEXT NOT NULL, level_passed INTEGER NOT NULL DEFAULT 0, FOREIGN KEY (parent_id) REFERENCES parents(id));

CREATE TABLE classes (id TEXT PRIMARY KEY, level INTEGER NOT NULL CHECK (level BETWEEN 1 AND 6), weekday TEXT NOT NULL CHECK (weekday IN ('Monday','Tuesday','Wednesday','Thursday','Friday','Saturday','Sunday')), time TEXT NOT NULL, first_lesson TEXT NOT NULL, lessons INTEGER NOT NULL, max_size INTEGER NOT NULL, fee_per_lesson REAL NOT NULL);

CREATE TABLE enrolments (id INTEGER PRIMARY KEY, child_id TEXT NOT NULL, class_id TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('enrolled','withdrawn')), fee REAL NOT NULL, fee_status TEXT NOT NULL CHECK (fee_status IN ('unpaid','paid')), refund REAL NOT NULL DEFAULT 0, makeups_used INTEGER NOT NULL DEFAULT 0, withdrawn_at TEXT, FOREIGN KEY (child_id) REFERENCES children(id), FOREIGN KEY (class_id) REFERENCES classes(id));

CREATE TABLE waiting_list (id INTEGER PRIMARY KEY, child_id TEXT NOT NULL, class_id TEXT NOT NULL, created_at TEXT NOT NULL, UNIQUE (child_id, class_id), FOREIGN KEY (child_id) REFERENCES children(id), FOREIGN KEY (class_id) REFERENCES classes(id));

CREATE TABLE makeups (id INTEGER PRIMARY KEY, enrolment_id INTEGER NOT NULL, class_id TEXT NOT NULL, date TEXT NOT NULL, missed_date TEXT NOT NULL, FOREIGN KEY (enrolment_id) REFERENCES enrolments(id), FOREIGN KEY (class_id) REFERENCES classes(id));

CREATE TABLE attendance (id INTEGER PRIMARY KEY, enrolment_id INTEGER NOT NULL, date TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('attended','absent')), FOREIGN KEY (enrolment_id) REFERENCES enrolments(id));
