CREATE TABLE donors (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, gift_aid_declaration INTEGER NOT NULL DEFAULT 0 CHECK (gift_aid_declaration IN (0, 1)));

CREATE TABLE campaigns (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, status TEXT NOT NULL CHECK (status IN ('open', 'closed')), closes_on TEXT);

CREATE TABLE donations (id INTEGER PRIMARY KEY, donor_id TEXT NOT NULL, campaign_id TEXT NOT NULL, amount REAL NOT NULL CHECK (amount > 0), donated_at TEXT NOT NULL, gift_aid INTEGER NOT NULL DEFAULT 0 CHECK (gift_aid IN (0, 1)), FOREIGN KEY (donor_id) REFERENCES donors(id), FOREIGN KEY (campaign_id) REFERENCES campaigns(id));

CREATE TABLE monthly_donations (id INTEGER PRIMARY KEY, donor_id TEXT NOT NULL, campaign_id TEXT NOT NULL, amount REAL NOT NULL CHECK (amount > 0), start_date TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('active', 'cancelled')), cancelled_at TEXT, FOREIGN KEY (donor_id) REFERENCES donors(id), FOREIGN KEY (campaign_id) REFERENCES campaigns(id));

CREATE INDEX donations_by_donor ON donations(donor_id);

CREATE INDEX monthly_by_donor ON monthly_donations(donor_id);
