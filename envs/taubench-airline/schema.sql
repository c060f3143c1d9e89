-- τ-bench airline: one table per collection, keyed by the record id, with the
-- whole τ-bench record as JSON text in `data`, written exactly as Python's
-- json.dumps writes it (the data files are json.dumps output, and the tools
-- write json.dumps text back), so that the read tools return `data` as is.
CREATE TABLE users (
  id   TEXT PRIMARY KEY,
  data TEXT NOT NULL
);

CREATE TABLE reservations (
  id   TEXT PRIMARY KEY,
  data TEXT NOT NULL
);

-- flights is never written by a tool. `origin` and `destination` are filled
-- from the record by the importer; the trigger below keeps, beside the whole
-- record, the record without `dates` (`head`), the two scheduled times, and
-- one flight_dates row per date, so that the searches read a few small rows
-- instead of parsing 300 records of 5 KB. rowid order is the file order,
-- which is the iteration order of τ-bench's dict.
CREATE TABLE flights (
  id          TEXT PRIMARY KEY,
  origin      TEXT,
  destination TEXT,
  data        TEXT NOT NULL,
  head        TEXT,
  arrival     TEXT,
  departure   TEXT
);

CREATE INDEX flights_route ON flights (origin, destination);
CREATE INDEX flights_destination ON flights (destination);

CREATE TABLE flight_dates (
  flight TEXT NOT NULL,
  date   TEXT NOT NULL,
  status TEXT,
  data   TEXT NOT NULL,
  PRIMARY KEY (flight, date)
);

CREATE TRIGGER flights_derive AFTER INSERT ON flights BEGIN
  UPDATE flights SET
    head      = json_remove(NEW.data, '$.dates'),
    arrival   = json_extract(NEW.data, '$.scheduled_arrival_time_est'),
    departure = json_extract(NEW.data, '$.scheduled_departure_time_est')
  WHERE rowid = NEW.rowid;
  INSERT INTO flight_dates (flight, date, status, data)
    SELECT NEW.id, key, json_extract(value, '$.status'), value
    FROM json_each(NEW.data, '$.dates');
END;
