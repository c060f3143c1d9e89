CREATE TABLE members (
    member_id TEXT PRIMARY KEY,
    name      TEXT NOT NULL,
    email     TEXT NOT NULL UNIQUE
);

CREATE TABLE books (
    book_id TEXT PRIMARY KEY,
    title   TEXT NOT NULL,
    author  TEXT NOT NULL,
    copies  INTEGER NOT NULL CHECK (copies >= 0)
);

CREATE TABLE loans (
    loan_id     INTEGER PRIMARY KEY,
    member_id   TEXT NOT NULL REFERENCES members(member_id),
    book_id     TEXT NOT NULL REFERENCES books(book_id),
    borrowed_at TEXT NOT NULL,
    due         TEXT NOT NULL,
    returned_at TEXT
);
