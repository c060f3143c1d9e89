-- Calendar / scheduling service. All timestamps are ISO-8601 text in UTC
-- ("2024-06-05T13:00:00Z"); dates are "YYYY-MM-DD"; clock times "HH:MM" (UTC).

CREATE TABLE users (
    user_id     TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    email       TEXT NOT NULL UNIQUE,
    title       TEXT NOT NULL,
    department  TEXT NOT NULL,
    manager_id  TEXT REFERENCES users(user_id)
);

CREATE TABLE calendars (
    calendar_id TEXT PRIMARY KEY,
    owner_id    TEXT NOT NULL REFERENCES users(user_id),
    name        TEXT NOT NULL,
    color       TEXT NOT NULL,
    is_primary  INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE rooms (
    room_id         TEXT PRIMARY KEY,
    name            TEXT NOT NULL UNIQUE,
    building        TEXT NOT NULL,
    floor           INTEGER NOT NULL,
    capacity        INTEGER NOT NULL,
    has_video       INTEGER NOT NULL DEFAULT 0,
    has_whiteboard  INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE recurring_series (
    series_id        TEXT PRIMARY KEY,
    organizer_id     TEXT NOT NULL REFERENCES users(user_id),
    calendar_id      TEXT NOT NULL REFERENCES calendars(calendar_id),
    title            TEXT NOT NULL,
    frequency        TEXT NOT NULL CHECK (frequency IN ('daily', 'weekly', 'biweekly')),
    first_start      TEXT NOT NULL,
    duration_minutes INTEGER NOT NULL,
    occurrences      INTEGER NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('active', 'ended', 'cancelled')),
    created_at       TEXT NOT NULL
);

CREATE TABLE events (
    event_id      TEXT PRIMARY KEY,
    calendar_id   TEXT NOT NULL REFERENCES calendars(calendar_id),
    organizer_id  TEXT NOT NULL REFERENCES users(user_id),
    title         TEXT NOT NULL,
    description   TEXT NOT NULL DEFAULT '',
    location      TEXT NOT NULL DEFAULT '',
    start_at      TEXT NOT NULL,
    end_at        TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('confirmed', 'cancelled')),
    cancel_reason TEXT,
    series_id     TEXT REFERENCES recurring_series(series_id),
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);

-- The organizer is also an attendee (response 'accepted').
CREATE TABLE attendees (
    event_id     TEXT NOT NULL REFERENCES events(event_id),
    user_id      TEXT NOT NULL REFERENCES users(user_id),
    response     TEXT NOT NULL CHECK (response IN ('needs_action', 'accepted', 'declined', 'tentative')),
    is_optional  INTEGER NOT NULL DEFAULT 0,
    comment      TEXT NOT NULL DEFAULT '',
    responded_at TEXT,
    PRIMARY KEY (event_id, user_id)
);

CREATE TABLE room_bookings (
    booking_id  TEXT PRIMARY KEY,
    room_id     TEXT NOT NULL REFERENCES rooms(room_id),
    event_id    TEXT NOT NULL REFERENCES events(event_id),
    booked_by   TEXT NOT NULL REFERENCES users(user_id),
    start_at    TEXT NOT NULL,
    end_at      TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('active', 'released')),
    created_at  TEXT NOT NULL,
    released_at TEXT
);

CREATE TABLE reminders (
    reminder_id    TEXT PRIMARY KEY,
    event_id       TEXT NOT NULL REFERENCES events(event_id),
    user_id        TEXT NOT NULL REFERENCES users(user_id),
    minutes_before INTEGER NOT NULL,
    method         TEXT NOT NULL CHECK (method IN ('popup', 'email')),
    created_at     TEXT NOT NULL,
    UNIQUE (event_id, user_id, method)
);

CREATE TABLE working_hours (
    user_id    TEXT NOT NULL REFERENCES users(user_id),
    weekday    TEXT NOT NULL CHECK (weekday IN ('monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday')),
    start_time TEXT NOT NULL,
    end_time   TEXT NOT NULL,
    PRIMARY KEY (user_id, weekday)
);

CREATE TABLE time_off (
    request_id TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users(user_id),
    start_date TEXT NOT NULL,
    end_date   TEXT NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('vacation', 'sick', 'personal')),
    status     TEXT NOT NULL CHECK (status IN ('approved', 'cancelled')),
    note       TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
);

-- Sequences for new ids (deterministic across episodes).
CREATE TABLE counters (
    name       TEXT PRIMARY KEY,
    next_value INTEGER NOT NULL
);

CREATE INDEX events_start ON events(start_at);
CREATE INDEX attendees_user ON attendees(user_id);
CREATE INDEX bookings_room ON room_bookings(room_id, status);
