CREATE TABLE members (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, points INTEGER NOT NULL DEFAULT 0 CHECK (points >= 0));

CREATE TABLE films (id TEXT PRIMARY KEY, title TEXT NOT NULL UNIQUE, age_rating TEXT NOT NULL CHECK (age_rating IN ('U','PG','12A','15','18')), min_age INTEGER NOT NULL, runtime_minutes INTEGER NOT NULL);

CREATE TABLE screens (id TEXT PRIMARY KEY, name TEXT NOT NULL, supports_imax INTEGER NOT NULL DEFAULT 0);

CREATE TABLE seats (screen_id TEXT NOT NULL, label TEXT NOT NULL, seat_row TEXT NOT NULL, seat_number INTEGER NOT NULL, PRIMARY KEY (screen_id, label), FOREIGN KEY (screen_id) REFERENCES screens(id));

CREATE TABLE screenings (id TEXT PRIMARY KEY, film_id TEXT NOT NULL, screen_id TEXT NOT NULL, starts_at TEXT NOT NULL, format TEXT NOT NULL CHECK (format IN ('2D','3D','IMAX')), adult_price REAL NOT NULL, child_price REAL NOT NULL, FOREIGN KEY (film_id) REFERENCES films(id), FOREIGN KEY (screen_id) REFERENCES screens(id));

CREATE TABLE snack_combos (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, price REAL NOT NULL, includes_drink INTEGER NOT NULL CHECK (includes_drink IN (0,1)));

CREATE TABLE bookings (id INTEGER PRIMARY KEY, member_id TEXT NOT NULL, screening_id TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked','refunded')), payment TEXT NOT NULL CHECK (payment IN ('card','points','tuesday_discount','mixed')), points_used INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, refunded_at TEXT, refund_amount REAL, FOREIGN KEY (member_id) REFERENCES members(id), FOREIGN KEY (screening_id) REFERENCES screenings(id));

CREATE TABLE booking_seats (booking_id INTEGER NOT NULL, seat_label TEXT NOT NULL, ticket_type TEXT NOT NULL CHECK (ticket_type IN ('adult','child')), attendee_age INTEGER, price_paid REAL NOT NULL, paid_with_points INTEGER NOT NULL DEFAULT 0 CHECK (paid_with_points IN (0,1)), PRIMARY KEY (booking_id, seat_label), FOREIGN KEY (booking_id) REFERENCES bookings(id));

CREATE TABLE booking_snacks (id INTEGER PRIMARY KEY, booking_id INTEGER NOT NULL, combo_id TEXT NOT NULL, quantity INTEGER NOT NULL CHECK (quantity > 0), unit_price REAL NOT NULL, FOREIGN KEY (booking_id) REFERENCES bookings(id), FOREIGN KEY (combo_id) REFERENCES snack_combos(id));

CREATE INDEX idx_bookings_member ON bookings(member_id);

CREATE INDEX idx_bookings_screening ON bookings(screening_id);
