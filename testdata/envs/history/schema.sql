CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE audit (id INTEGER PRIMARY KEY, item_id INTEGER, what TEXT);
CREATE TABLE part (id INTEGER PRIMARY KEY, item_id INTEGER REFERENCES item(id) ON DELETE CASCADE);
CREATE TRIGGER item_audit AFTER INSERT ON item BEGIN
  INSERT INTO audit (item_id, what) VALUES (new.id, 'insert');
  INSERT INTO audit (item_id, what) VALUES (new.id, 'again');
END;
INSERT INTO item (id, name) VALUES (1, 'one'), (2, 'two');
INSERT INTO part (item_id) VALUES (1), (1), (2);
