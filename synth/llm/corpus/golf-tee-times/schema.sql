CREATE TABLE members (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, membership TEXT NOT NULL CHECK (membership IN ('full','weekday')));

CREATE TABLE courses (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, guest_fee REAL NOT NULL);

CREATE TABLE tee_times (id TEXT PRIMARY KEY, course_id TEXT NOT NULL, start TEXT NOT NULL, capacity INTEGER NOT NULL DEFAULT 4 CHECK (capacity BETWEEN 1 AND 4), UNIQUE (course_id, start), FOREIGN KEY (course_id) REFERENCES courses(id));

CREATE TABLE bookings (id TEXT PRIMARY KEY, member_id TEXT NOT NULL, tee_time_id TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked','cancelled','played')), cancelled_at TEXT, FOREIGN KEY (member_id) REFERENCES members(id), FOREIGN KEY (tee_time_id) REFERENCES tee_times(id));

CREATE TABLE booking_players (id INTEGER PRIMARY KEY, booking_id TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('member','guest')), fee REAL NOT NULL DEFAULT 0, fee_status TEXT NOT NULL CHECK (fee_status IN ('none','unpaid','paid','refunded')), removed INTEGER NOT NULL DEFAULT 0, FOREIGN KEY (booking_id) REFERENCES bookings(id));

CREATE TABLE buggies (id TEXT PRIMARY KEY, name TEXT NOT NULL);

CREATE TABLE buggy_hires (id INTEGER PRIMARY KEY, booking_id TEXT NOT NULL, buggy_id TEXT NOT NULL, date TEXT NOT NULL, fee REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('unpaid','paid','cancelled')), FOREIGN KEY (booking_id) REFERENCES bookings(id), FOREIGN KEY (buggy_id) REFERENCES buggies(id));

CREATE INDEX bookings_member ON bookings(member_id);

CREATE INDEX players_booking ON booking_players(booking_id);
