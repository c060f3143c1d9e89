CREATE TABLE members (id TEXT PRIMARY KEY, username TEXT NOT NULL UNIQUE, email TEXT NOT NULL UNIQUE, display_name TEXT NOT NULL, neighbourhood TEXT NOT NULL);

CREATE TABLE groups (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, visibility TEXT NOT NULL CHECK (visibility IN ('open','private')), description TEXT NOT NULL);

CREATE TABLE memberships (id INTEGER PRIMARY KEY, group_id TEXT NOT NULL REFERENCES groups(id), member_id TEXT NOT NULL REFERENCES members(id), role TEXT NOT NULL CHECK (role IN ('member','admin')), joined_at TEXT NOT NULL, UNIQUE (group_id, member_id));

CREATE TABLE join_requests (id INTEGER PRIMARY KEY, group_id TEXT NOT NULL REFERENCES groups(id), member_id TEXT NOT NULL REFERENCES members(id), status TEXT NOT NULL CHECK (status IN ('pending','approved','rejected')), requested_at TEXT NOT NULL);

CREATE TABLE events (id TEXT PRIMARY KEY, group_id TEXT NOT NULL REFERENCES groups(id), title TEXT NOT NULL, starts_at TEXT NOT NULL, capacity INTEGER NOT NULL CHECK (capacity > 0), location TEXT NOT NULL);

CREATE TABLE rsvps (id INTEGER PRIMARY KEY, event_id TEXT NOT NULL REFERENCES events(id), member_id TEXT NOT NULL REFERENCES members(id), status TEXT NOT NULL CHECK (status IN ('going','cancelled')), responded_at TEXT NOT NULL);

CREATE TABLE posts (id INTEGER PRIMARY KEY, group_id TEXT NOT NULL REFERENCES groups(id), member_id TEXT NOT NULL REFERENCES members(id), body TEXT NOT NULL, posted_at TEXT NOT NULL);

CREATE INDEX rsvps_event ON rsvps(event_id);

CREATE INDEX memberships_member ON memberships(member_id);
