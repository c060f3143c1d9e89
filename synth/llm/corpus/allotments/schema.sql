CREATE TABLE tenants (id TEXT PRIMARY KEY, name TEXT NOT NULL, postcode TEXT NOT NULL, household TEXT NOT NULL, pensioner INTEGER NOT NULL DEFAULT 0 CHECK (pensioner IN (0,1)));

CREATE TABLE sites (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE);

CREATE TABLE plots (id TEXT PRIMARY KEY, site_id TEXT NOT NULL, number INTEGER NOT NULL, size TEXT NOT NULL CHECK (size IN ('full','half','raised')), yearly_rent REAL NOT NULL, has_tap INTEGER NOT NULL DEFAULT 0 CHECK (has_tap IN (0,1)), UNIQUE (site_id, number), FOREIGN KEY (site_id) REFERENCES sites(id));

CREATE TABLE tenancies (id INTEGER PRIMARY KEY, tenant_id TEXT NOT NULL, plot_id TEXT NOT NULL, start_date TEXT NOT NULL, end_date TEXT, status TEXT NOT NULL CHECK (status IN ('active','ended')), yearly_rent REAL NOT NULL, refund REAL NOT NULL DEFAULT 0, FOREIGN KEY (tenant_id) REFERENCES tenants(id), FOREIGN KEY (plot_id) REFERENCES plots(id));

CREATE TABLE waiting_list (id INTEGER PRIMARY KEY, tenant_id TEXT NOT NULL, site_id TEXT NOT NULL, size TEXT NOT NULL CHECK (size IN ('full','half','raised')), joined_on TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('waiting','offered','withdrawn')), offered_plot_id TEXT, FOREIGN KEY (tenant_id) REFERENCES tenants(id), FOREIGN KEY (site_id) REFERENCES sites(id));

CREATE TABLE warnings (id INTEGER PRIMARY KEY, tenant_id TEXT NOT NULL, plot_id TEXT NOT NULL, issued_on TEXT NOT NULL, reason TEXT NOT NULL, FOREIGN KEY (tenant_id) REFERENCES tenants(id), FOREIGN KEY (plot_id) REFERENCES plots(id));
