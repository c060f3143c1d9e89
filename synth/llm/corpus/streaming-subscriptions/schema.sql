CREATE TABLE plans (code TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, monthly_price REAL NOT NULL CHECK (monthly_price > 0), max_screens INTEGER NOT NULL CHECK (max_screens > 0), max_profiles INTEGER NOT NULL CHECK (max_profiles > 0), resolution TEXT NOT NULL CHECK (resolution IN ('SD','HD','4K')));

CREATE TABLE subscribers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, plan_code TEXT NOT NULL REFERENCES plans(code), status TEXT NOT NULL CHECK (status IN ('active','paused','cancelled')), paused_until TEXT, store_credit REAL NOT NULL CHECK (store_credit >= 0), renews_on TEXT NOT NULL);

CREATE TABLE profiles (id INTEGER PRIMARY KEY, subscriber_id TEXT NOT NULL REFERENCES subscribers(id), name TEXT NOT NULL, kids INTEGER NOT NULL CHECK (kids IN (0,1)), UNIQUE (subscriber_id, name));

CREATE TABLE films (id TEXT PRIMARY KEY, title TEXT NOT NULL UNIQUE, year INTEGER NOT NULL, rental_price REAL NOT NULL CHECK (rental_price > 0), available INTEGER NOT NULL CHECK (available IN (0,1)));

CREATE TABLE rentals (id INTEGER PRIMARY KEY, subscriber_id TEXT NOT NULL REFERENCES subscribers(id), film_id TEXT NOT NULL REFERENCES films(id), price REAL NOT NULL, rented_at TEXT NOT NULL, expires_at TEXT NOT NULL);

CREATE TABLE plan_changes (id INTEGER PRIMARY KEY, subscriber_id TEXT NOT NULL REFERENCES subscribers(id), from_plan TEXT NOT NULL REFERENCES plans(code), to_plan TEXT NOT NULL REFERENCES plans(code), changed_at TEXT NOT NULL);
