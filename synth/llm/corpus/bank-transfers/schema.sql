CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, zip TEXT NOT NULL, daily_limit REAL NOT NULL CHECK (daily_limit > 0));

CREATE TABLE accounts (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(id), type TEXT NOT NULL CHECK (type IN ('checking','savings')), balance REAL NOT NULL, UNIQUE (customer_id, type));

CREATE TABLE cards (id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id), last4 TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('active','frozen')), frozen_at TEXT);

CREATE TABLE payees (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(id), name TEXT NOT NULL, account_number TEXT NOT NULL);

CREATE TABLE transactions (id INTEGER PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id), kind TEXT NOT NULL CHECK (kind IN ('deposit','card_purchase','transfer_in','transfer_out','payment')), amount REAL NOT NULL CHECK (amount > 0), description TEXT NOT NULL, created_at TEXT NOT NULL);

CREATE INDEX transactions_account ON transactions(account_id);
