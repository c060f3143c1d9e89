CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL);

CREATE TABLE accounts (number TEXT PRIMARY KEY, customer_id TEXT NOT NULL, postcode TEXT NOT NULL, direct_debit_day INTEGER NOT NULL CHECK (direct_debit_day BETWEEN 1 AND 28), last_fee_waiver_on TEXT, FOREIGN KEY (customer_id) REFERENCES customers(id));

CREATE TABLE meters (id TEXT PRIMARY KEY, account_number TEXT NOT NULL, fuel TEXT NOT NULL CHECK (fuel IN ('electricity','gas')), unit_rate REAL NOT NULL, FOREIGN KEY (account_number) REFERENCES accounts(number));

CREATE TABLE readings (id TEXT PRIMARY KEY, meter_id TEXT NOT NULL, read_on TEXT NOT NULL, value INTEGER NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('actual','estimated')), FOREIGN KEY (meter_id) REFERENCES meters(id));

CREATE TABLE bills (id TEXT PRIMARY KEY, account_number TEXT NOT NULL, meter_id TEXT NOT NULL, period TEXT NOT NULL, issued_on TEXT NOT NULL, due_on TEXT NOT NULL, opening_reading INTEGER NOT NULL, closing_reading INTEGER NOT NULL, estimated INTEGER NOT NULL CHECK (estimated IN (0,1)), amount REAL NOT NULL, paid REAL NOT NULL DEFAULT 0, status TEXT NOT NULL CHECK (status IN ('open','paid','overdue','reissued')), FOREIGN KEY (account_number) REFERENCES accounts(number), FOREIGN KEY (meter_id) REFERENCES meters(id));

CREATE TABLE disputes (id TEXT PRIMARY KEY, bill_id TEXT NOT NULL, reading INTEGER, status TEXT NOT NULL CHECK (status IN ('open','resolved')), credit REAL NOT NULL DEFAULT 0, raised_on TEXT NOT NULL, FOREIGN KEY (bill_id) REFERENCES bills(id));

CREATE TABLE fees (id TEXT PRIMARY KEY, account_number TEXT NOT NULL, bill_id TEXT NOT NULL, amount REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('charged','waived','paid')), charged_on TEXT NOT NULL, waived_on TEXT, FOREIGN KEY (account_number) REFERENCES accounts(number), FOREIGN KEY (bill_id) REFERENCES bills(id));

CREATE TABLE credits (id INTEGER PRIMARY KEY, account_number TEXT NOT NULL, amount REAL NOT NULL, reason TEXT NOT NULL, created_on TEXT NOT NULL, FOREIGN KEY (account_number) REFERENCES accounts(number));

CREATE TABLE payment_plans (id TEXT PRIMARY KEY, account_number TEXT NOT NULL, total REAL NOT NULL, instalments INTEGER NOT NULL CHECK (instalments BETWEEN 3 AND 12), instalment_amount REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('active','cancelled','completed')), created_on TEXT NOT NULL, FOREIGN KEY (account_number) REFERENCES accounts(number));
