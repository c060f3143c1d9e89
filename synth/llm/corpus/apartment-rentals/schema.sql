CREATE TABLE tenants (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);

CREATE TABLE agents (id TEXT PRIMARY KEY, name TEXT NOT NULL);

CREATE TABLE apartments (id TEXT PRIMARY KEY, address TEXT NOT NULL UNIQUE, city TEXT NOT NULL, bedrooms INTEGER NOT NULL CHECK (bedrooms >= 0), rent REAL NOT NULL CHECK (rent > 0), agent_id TEXT NOT NULL REFERENCES agents(id), listed INTEGER NOT NULL CHECK (listed IN (0,1)));

CREATE TABLE viewing_slots (id TEXT PRIMARY KEY, apartment_id TEXT NOT NULL REFERENCES apartments(id), starts_at TEXT NOT NULL, tenant_id TEXT REFERENCES tenants(id), UNIQUE (apartment_id, starts_at));

CREATE TABLE applications (id INTEGER PRIMARY KEY, tenant_id TEXT NOT NULL REFERENCES tenants(id), apartment_id TEXT NOT NULL REFERENCES apartments(id), status TEXT NOT NULL CHECK (status IN ('pending','accepted','rejected','withdrawn')), applied_at TEXT NOT NULL, UNIQUE (tenant_id, apartment_id));
