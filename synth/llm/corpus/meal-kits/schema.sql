CREATE TABLE plans (id TEXT PRIMARY KEY, recipes_per_week INTEGER NOT NULL, people INTEGER NOT NULL, weekly_price REAL NOT NULL, UNIQUE (recipes_per_week, people));

CREATE TABLE promos (code TEXT PRIMARY KEY, percent_off INTEGER NOT NULL, active INTEGER NOT NULL CHECK (active IN (0,1)));

CREATE TABLE subscribers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, plan_id TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('active','paused')), paused_until TEXT, promo_code TEXT, FOREIGN KEY (plan_id) REFERENCES plans(id), FOREIGN KEY (promo_code) REFERENCES promos(code));

CREATE TABLE recipes (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, surcharge REAL NOT NULL);

CREATE TABLE boxes (id TEXT PRIMARY KEY, subscriber_id TEXT NOT NULL, week_start TEXT NOT NULL, cutoff_at TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('open','skipped','delivered')), UNIQUE (subscriber_id, week_start), FOREIGN KEY (subscriber_id) REFERENCES subscribers(id));

CREATE TABLE box_recipes (id INTEGER PRIMARY KEY, box_id TEXT NOT NULL, recipe_id TEXT NOT NULL, UNIQUE (box_id, recipe_id), FOREIGN KEY (box_id) REFERENCES boxes(id), FOREIGN KEY (recipe_id) REFERENCES recipes(id));

CREATE TABLE promo_redemptions (id INTEGER PRIMARY KEY, subscriber_id TEXT NOT NULL, code TEXT NOT NULL, redeemed_at TEXT NOT NULL, UNIQUE (subscriber_id, code), FOREIGN KEY (subscriber_id) REFERENCES subscribers(id), FOREIGN KEY (code) REFERENCES promos(code));
