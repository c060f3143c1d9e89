-- A deliberately small smart-home database for the arena's CPU
-- demonstration: few rows with one-word names, so that a 200k-parameter
-- policy trained from scratch can learn the values (it cannot copy long
-- identifiers: docs/TRAINING.md).
CREATE TABLE rooms (
  room_id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  floor INTEGER NOT NULL CHECK (floor BETWEEN 0 AND 2)
);
CREATE TABLE lamps (
  lamp_id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  room_id TEXT NOT NULL REFERENCES rooms(room_id),
  state TEXT NOT NULL CHECK (state IN ('on', 'off')),
  color TEXT NOT NULL CHECK (color IN ('white', 'warm', 'red', 'blue', 'green')),
  brightness INTEGER NOT NULL CHECK (brightness BETWEEN 0 AND 100)
);
CREATE TABLE sensors (
  sensor_id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  room_id TEXT NOT NULL REFERENCES rooms(room_id),
  kind TEXT NOT NULL CHECK (kind IN ('motion', 'smoke', 'door')),
  armed TEXT NOT NULL CHECK (armed IN ('yes', 'no'))
);
INSERT INTO rooms VALUES ('R1', 'kitchen', 0), ('R2', 'bedroom', 1), ('R3', 'garage', 0), ('R4', 'office', 1), ('R5', 'attic', 2);
INSERT INTO lamps VALUES
 ('L1', 'desk', 'R4', 'off', 'white', 80), ('L2', 'ceiling', 'R1', 'on', 'warm', 60),
 ('L3', 'bedside', 'R2', 'off', 'warm', 30), ('L4', 'porch', 'R3', 'on', 'white', 100),
 ('L5', 'reading', 'R4', 'on', 'blue', 70), ('L6', 'pantry', 'R1', 'off', 'green', 40),
 ('L7', 'mirror', 'R2', 'on', 'red', 50), ('L8', 'workbench', 'R3', 'off', 'white', 90),
 ('L9', 'skylight', 'R5', 'off', 'blue', 20), ('L10', 'hallway', 'R2', 'on', 'white', 75);
INSERT INTO sensors VALUES
 ('S1', 'stove', 'R1', 'smoke', 'yes'), ('S2', 'window', 'R2', 'door', 'no'),
 ('S3', 'gate', 'R3', 'door', 'yes'), ('S4', 'corner', 'R4', 'motion', 'no'),
 ('S5', 'hatch', 'R5', 'door', 'no'), ('S6', 'entry', 'R3', 'motion', 'yes');
