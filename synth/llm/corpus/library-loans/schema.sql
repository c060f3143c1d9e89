CREATE TABLE patrons (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, card_number TEXT NOT NULL UNIQUE);

CREATE TABLE books (id TEXT PRIMARY KEY, title TEXT NOT NULL, author TEXT NOT NULL);

CREATE TABLE copies (id TEXT PRIMARY KEY, book_id TEXT NOT NULL REFERENCES books(id), status TEXT NOT NULL CHECK (status IN ('available','on_loan','lost')));

CREATE TABLE loans (id INTEGER PRIMARY KEY, copy_id TEXT NOT NULL REFERENCES copies(id), patron_id TEXT NOT NULL REFERENCES patrons(id), borrowed_at TEXT NOT NULL, due_date TEXT NOT NULL, renewed INTEGER NOT NULL CHECK (renewed IN (0,1)), returned_at TEXT);

CREATE TABLE reservations (id INTEGER PRIMARY KEY, book_id TEXT NOT NULL REFERENCES books(id), patron_id TEXT NOT NULL REFERENCES patrons(id), status TEXT NOT NULL CHECK (status IN ('waiting','fulfilled','cancelled')), reserved_at TEXT NOT NULL);

CREATE TABLE fines (id INTEGER PRIMARY KEY, patron_id TEXT NOT NULL REFERENCES patrons(id), loan_id INTEGER REFERENCES loans(id), amount REAL NOT NULL CHECK (amount > 0), reason TEXT NOT NULL, paid_at TEXT);
