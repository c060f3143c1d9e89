CREATE TABLE taxpayers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE returns (id TEXT PRIMARY KEY, taxpayer_id TEXT NOT NULL, tax_year INTEGER NOT NULL, status TEXT NOT NULL CHECK (status IN ('draft','filed','amended')), deadline TEXT NOT NULL, extended INTEGER NOT NULL CHECK (extended IN (0,1)), filed_at TEXT, UNIQUE (taxpayer_id, tax_year), FOREIGN KEY (taxpayer_id) REFERENCES taxpayers(id));

CREATE TABLE incomes (id TEXT PRIMARY KEY, return_id TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('w2','1099','interest')), payer TEXT NOT NULL, amount REAL NOT NULL CHECK (amount > 0), withheld REAL NOT NULL CHECK (withheld >= 0), FOREIGN KEY (return_id) REFERENCES returns(id));

CREATE TABLE expenses (id INTEGER PRIMARY KEY, return_id TEXT NOT NULL, category TEXT NOT NULL CHECK (category IN ('charity','medical','education')), payee TEXT NOT NULL, amount REAL NOT NULL CHECK (amount > 0), FOREIGN KEY (return_id) REFERENCES returns(id));

CREATE TABLE dependants (id INTEGER PRIMARY KEY, return_id TEXT NOT NULL, name TEXT NOT NULL, birth_date TEXT NOT NULL, FOREIGN KEY (return_id) REFERENCES returns(id));

CREATE TABLE documents (id TEXT PRIMARY KEY, return_id TEXT NOT NULL, name TEXT NOT NULL, verified INTEGER NOT NULL CHECK (verified IN (0,1)), FOREIGN KEY (return_id) REFERENCES returns(id));

CREATE TABLE amendments (id INTEGER PRIMARY KEY, return_id TEXT NOT NULL, amended_at TEXT NOT NULL, note TEXT NOT NULL, FOREIGN KEY (return_id) REFERENCES returns(id));
