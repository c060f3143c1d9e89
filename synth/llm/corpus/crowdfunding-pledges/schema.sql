CREATE TABLE backers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, card_last4 TEXT NOT NULL);

CREATE TABLE campaigns (id TEXT PRIMARY KEY, title TEXT NOT NULL UNIQUE, goal REAL NOT NULL, raised REAL NOT NULL, ends_at TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('live','funded','failed')));

CREATE TABLE tiers (id TEXT PRIMARY KEY, campaign_id TEXT NOT NULL, name TEXT NOT NULL, min_amount REAL NOT NULL, units_left INTEGER NOT NULL CHECK (units_left >= 0), UNIQUE (campaign_id, name), FOREIGN KEY (campaign_id) REFERENCES campaigns(id));

CREATE TABLE pledges (id TEXT PRIMARY KEY, backer_id TEXT NOT NULL, campaign_id TEXT NOT NULL, tier_id TEXT NOT NULL, amount REAL NOT NULL CHECK (amount > 0), status TEXT NOT NULL CHECK (status IN ('active','cancelled','collected')), shipping_address TEXT NOT NULL, reward_status TEXT NOT NULL CHECK (reward_status IN ('pending','shipped')), created_at TEXT NOT NULL, FOREIGN KEY (backer_id) REFERENCES backers(id), FOREIGN KEY (campaign_id) REFERENCES campaigns(id), FOREIGN KEY (tier_id) REFERENCES tiers(id));
