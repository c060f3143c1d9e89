CREATE TABLE employees (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, manager_id TEXT REFERENCES employees(id), annual_allowance INTEGER NOT NULL CHECK (annual_allowance >= 0));

CREATE TABLE leave_requests (id INTEGER PRIMARY KEY, employee_id TEXT NOT NULL REFERENCES employees(id), kind TEXT NOT NULL CHECK (kind IN ('annual','sick')), start_date TEXT NOT NULL, end_date TEXT NOT NULL, days INTEGER NOT NULL CHECK (days > 0), status TEXT NOT NULL CHECK (status IN ('pending','approved','rejected','cancelled')), decided_by TEXT REFERENCES employees(id), requested_at TEXT NOT NULL, decided_at TEXT, CHECK (end_date >= start_date));

CREATE INDEX leave_employee ON leave_requests(employee_id);
