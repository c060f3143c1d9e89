CREATE TABLE members (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, email TEXT NOT NULL UNIQUE);

CREATE TABLE projects (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, lead_id TEXT NOT NULL REFERENCES members(id));

CREATE TABLE project_members (project_id TEXT NOT NULL REFERENCES projects(id), member_id TEXT NOT NULL REFERENCES members(id), PRIMARY KEY (project_id, member_id));

CREATE TABLE tasks (id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES projects(id), title TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('todo','in_progress','review','done')), assignee_id TEXT REFERENCES members(id), reviewer_id TEXT REFERENCES members(id), due_date TEXT, created_by TEXT NOT NULL REFERENCES members(id), UNIQUE (project_id, title));

CREATE TABLE comments (id INTEGER PRIMARY KEY, task_id TEXT NOT NULL REFERENCES tasks(id), author_id TEXT NOT NULL REFERENCES members(id), body TEXT NOT NULL, posted_at TEXT NOT NULL);
