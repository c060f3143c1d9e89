-- Messaging / contacts app used by a single logged-in account (accounts.id = 1).
-- Timestamps are UTC text in the form YYYY-MM-DDTHH:MM:SSZ.

CREATE TABLE accounts (
  id           INTEGER PRIMARY KEY,
  username     TEXT NOT NULL UNIQUE,
  display_name TEXT NOT NULL,
  phone        TEXT UNIQUE,
  email        TEXT UNIQUE,
  status_text  TEXT NOT NULL DEFAULT '',
  created_at   TEXT NOT NULL
);

-- The logged-in user's address book. account_id links a contact to an account
-- on the service (NULL for people who are not on the app).
CREATE TABLE contacts (
  id          INTEGER PRIMARY KEY,
  account_id  INTEGER REFERENCES accounts(id),
  first_name  TEXT NOT NULL,
  last_name   TEXT NOT NULL DEFAULT '',
  phone       TEXT,
  email       TEXT,
  company     TEXT NOT NULL DEFAULT '',
  notes       TEXT NOT NULL DEFAULT '',
  favorite    INTEGER NOT NULL DEFAULT 0,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);

CREATE TABLE contact_groups (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL UNIQUE COLLATE NOCASE,
  description TEXT NOT NULL DEFAULT '',
  created_at  TEXT NOT NULL
);

CREATE TABLE group_memberships (
  group_id   INTEGER NOT NULL REFERENCES contact_groups(id),
  contact_id INTEGER NOT NULL REFERENCES contacts(id),
  added_at   TEXT NOT NULL,
  PRIMARY KEY (group_id, contact_id)
);

-- archived / muted are the logged-in user's view of the conversation.
CREATE TABLE conversations (
  id         INTEGER PRIMARY KEY,
  kind       TEXT NOT NULL CHECK (kind IN ('direct', 'group')),
  title      TEXT NOT NULL DEFAULT '',
  created_by INTEGER NOT NULL REFERENCES accounts(id),
  created_at TEXT NOT NULL,
  archived   INTEGER NOT NULL DEFAULT 0,
  muted      INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE participants (
  conversation_id INTEGER NOT NULL REFERENCES conversations(id),
  account_id      INTEGER NOT NULL REFERENCES accounts(id),
  role            TEXT NOT NULL DEFAULT 'member' CHECK (role IN ('admin', 'member')),
  joined_at       TEXT NOT NULL,
  PRIMARY KEY (conversation_id, account_id)
);

CREATE TABLE messages (
  id              INTEGER PRIMARY KEY,
  conversation_id INTEGER NOT NULL REFERENCES conversations(id),
  sender_id       INTEGER NOT NULL REFERENCES accounts(id),
  body            TEXT NOT NULL,
  sent_at         TEXT NOT NULL,
  edited_at       TEXT,
  deleted         INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE read_receipts (
  message_id INTEGER NOT NULL REFERENCES messages(id),
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  read_at    TEXT NOT NULL,
  PRIMARY KEY (message_id, account_id)
);

-- Accounts blocked by the logged-in user.
CREATE TABLE blocks (
  account_id INTEGER PRIMARY KEY REFERENCES accounts(id),
  reason     TEXT NOT NULL DEFAULT '',
  blocked_at TEXT NOT NULL
);

CREATE TABLE labels (
  id    INTEGER PRIMARY KEY,
  name  TEXT NOT NULL UNIQUE COLLATE NOCASE,
  color TEXT NOT NULL DEFAULT 'gray'
);

CREATE TABLE conversation_labels (
  conversation_id INTEGER NOT NULL REFERENCES conversations(id),
  label_id        INTEGER NOT NULL REFERENCES labels(id),
  PRIMARY KEY (conversation_id, label_id)
);

-- At most one unsent draft per conversation.
CREATE TABLE drafts (
  conversation_id INTEGER PRIMARY KEY REFERENCES conversations(id),
  body            TEXT NOT NULL,
  updated_at      TEXT NOT NULL
);

CREATE TABLE scheduled_messages (
  id              INTEGER PRIMARY KEY,
  conversation_id INTEGER NOT NULL REFERENCES conversations(id),
  body            TEXT NOT NULL,
  send_at         TEXT NOT NULL,
  status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'cancelled')),
  created_at      TEXT NOT NULL
);
