CREATE TABLE plans (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, monthly_fee REAL NOT NULL, free_sessions_per_month INTEGER NOT NULL DEFAULT 0);

CREATE TABLE members (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, plan_id TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('active','frozen','cancelled')), joined_on TEXT NOT NULL, billing_day INTEGER NOT NULL CHECK (billing_day BETWEEN 1 AND 28), min_term_ends_on TEXT NOT NULL, pending_plan_id TEXT, pending_plan_from TEXT, cancel_effective_on TEXT, FOREIGN KEY (plan_id) REFERENCES plans(id), FOREIGN KEY (pending_plan_id) REFERENCES plans(id));

CREATE TABLE payments (id TEXT PRIMARY KEY, member_id TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('membership','credit_pack','plan_change','cancellation_fee')), amount REAL NOT NULL, due_on TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('paid','overdue','scheduled')), FOREIGN KEY (member_id) REFERENCES members(id));

CREATE TABLE freezes (id TEXT PRIMARY KEY, member_id TEXT NOT NULL, starts_on TEXT NOT NULL, ends_on TEXT NOT NULL, created_on TEXT NOT NULL, FOREIGN KEY (member_id) REFERENCES members(id));

CREATE TABLE trainers (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE);

CREATE TABLE pack_products (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, sessions INTEGER NOT NULL, price REAL NOT NULL, valid_days INTEGER NOT NULL);

CREATE TABLE credit_packs (id TEXT PRIMARY KEY, member_id TEXT NOT NULL, name TEXT NOT NULL, sessions_total INTEGER NOT NULL, sessions_used INTEGER NOT NULL DEFAULT 0, bought_on TEXT NOT NULL, expires_on TEXT NOT NULL, FOREIGN KEY (member_id) REFERENCES members(id));

CREATE TABLE trainer_slots (id TEXT PRIMARY KEY, trainer_id TEXT NOT NULL, starts_at TEXT NOT NULL, FOREIGN KEY (trainer_id) REFERENCES trainers(id));

CREATE TABLE sessions (id TEXT PRIMARY KEY, member_id TEXT NOT NULL, slot_id TEXT NOT NULL, credit_pack_id TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('booked','cancelled','done')), FOREIGN KEY (member_id) REFERENCES members(id), FOREIGN KEY (slot_id) REFERENCES trainer_slots(id), FOREIGN KEY (credit_pack_id) REFERENCES credit_packs(id));

CREATE UNIQUE INDEX sessions_one_per_slot ON sessions (slot_id) WHERE status = 'booked';

CREATE TABLE guest_passes (id TEXT PRIMARY KEY, member_id TEXT NOT NULL, expires_on TEXT NOT NULL, guest_name TEXT, visit_on TEXT, given_on TEXT, FOREIGN KEY (member_id) REFERENCES members(id));
