CREATE TABLE members (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, suspended_until TEXT);

CREATE TABLE rooms (id TEXT PRIMARY KEY, floor INTEGER NOT NULL, seats INTEGER NOT NULL CHECK (seats > 0), has_screen INTEGER NOT NULL DEFAULT 0 CHECK (has_screen IN (0,1)), has_whiteboard INTEGER NOT NULL DEFAULT 0 CHECK (has_whiteboard IN (0,1)), has_video_kit INTEGER NOT NULL DEFAULT 0 CHECK (has_video_kit IN (0,1)));

CREATE TABLE equipment_faults (id INTEGER PRIMARY KEY, room_id TEXT NOT NULL, equipment TEXT NOT NULL CHECK (equipment IN ('screen','whiteboard','video_kit')), reported_by TEXT NOT NULL, reported_at TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open','fixed')), FOREIGN KEY (room_id) REFERENCES rooms(id), FOREIGN KEY (reported_by) REFERENCES members(id));

CREATE TABLE bookings (id TEXT PRIMARY KEY, room_id TEXT NOT NULL, member_id TEXT NOT NULL, start_at TEXT NOT NULL, end_at TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked','cancelled','no_show','completed')), cancelled_at TEXT, FOREIGN KEY (room_id) REFERENCES rooms(id), FOREIGN KEY (member_id) REFERENCES members(id));

CREATE INDEX bookings_room_time ON bookings (room_id, start_at);

CREATE INDEX bookings_member ON bookings (member_id, start_at);

CREATE TABLE booking_attendees (booking_id TEXT NOT NULL, member_id TEXT NOT NULL, PRIMARY KEY (booking_id, member_id), FOREIGN KEY (booking_id) REFERENCES bookings(id), FOREIGN KEY (member_id) REFERENCES members(id));

CREATE TABLE no_shows (id INTEGER PRIMARY KEY, member_id TEXT NOT NULL, booking_id TEXT NOT NULL, recorded_at TEXT NOT NULL, FOREIGN KEY (member_id) REFERENCES members(id), FOREIGN KEY (booking_id) REFERENCES bookings(id));
