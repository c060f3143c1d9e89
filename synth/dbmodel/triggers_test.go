package dbmodel

import (
	"slices"
	"testing"
)

// The tables a trigger writes, whatever the layout of its text (issue 38:
// a BEGIN on its own line hid the audit table, which then got create,
// update and delete tools against the docs).
func TestTriggerTargetsLayouts(t *testing.T) {
	for _, c := range []struct {
		name, sql string
		want      []string
	}{
		{"one line", `CREATE TRIGGER a AFTER INSERT ON rentals BEGIN INSERT INTO rental_log (id) VALUES (new.id); END`, []string{"rental_log"}},
		{"BEGIN on its own line", "CREATE TRIGGER a AFTER INSERT ON rentals\nBEGIN\n  INSERT INTO rental_log (id) VALUES (new.id);\nEND", []string{"rental_log"}},
		{"BEGIN after a tab", "CREATE TRIGGER a AFTER INSERT ON rentals FOR EACH ROW\tBEGIN\tUPDATE bikes SET n = n + 1; END", []string{"bikes"}},
		{"WHEN", "CREATE TRIGGER a AFTER UPDATE OF status ON rentals\nWHEN NEW.status = 'closed' AND OLD.status <> 'closed'\nBEGIN\n UPDATE bikes SET docked = 1 WHERE id = NEW.bike_id;\n INSERT INTO \"rental log\" (rental_id) VALUES (NEW.id);\nEND", []string{"bikes", "rental log"}},
		{"UPDATE OF names no table", "CREATE TRIGGER a BEFORE UPDATE OF status, bike_id ON rentals\nBEGIN\n DELETE FROM holds WHERE rental_id = OLD.id;\nEND", []string{"holds"}},
		{"comments", "CREATE TRIGGER a -- writes the log\nAFTER DELETE ON rentals /* BEGIN UPDATE decoy SET x = 1; */\nBEGIN -- here\n  INSERT INTO rental_log (id) VALUES (old.id); -- INSERT INTO decoy2\nEND", []string{"rental_log"}},
		{"begin in a literal or a name", "CREATE TRIGGER a AFTER INSERT ON rentals WHEN NEW.note <> ' begin UPDATE decoy SET x = 1' AND NEW.begin_at IS NOT NULL\nBEGIN\n  INSERT INTO rental_log (id) VALUES (new.id);\nEND", []string{"rental_log"}},
		{"lower case", "create trigger a after insert on rentals\nbegin\n  insert or replace into [Log] (id) values (new.id);\nend", []string{"Log"}},
		{"no body", "CREATE TRIGGER a AFTER INSERT ON rentals", nil},
	} {
		if got := TriggerTargets(c.sql); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// A table the trigger adds rows to is the database's to keep; one it only
// updates or deletes from is an ordinary table with its own tools.
func TestTriggerLogs(t *testing.T) {
	sql := "CREATE TRIGGER a AFTER UPDATE OF status ON rentals\nWHEN NEW.status = 'closed'\nBEGIN\n UPDATE stations SET docked = docked + 1 WHERE id = NEW.station_id;\n DELETE FROM holds WHERE rental_id = NEW.id;\n INSERT OR IGNORE INTO rental_log (rental_id) VALUES (NEW.id);\n REPLACE INTO latest (id) VALUES (NEW.id);\nEND"
	if got, want := TriggerLogs(sql), []string{"rental_log", "latest"}; !slices.Equal(got, want) {
		t.Errorf("logs %q, want %q", got, want)
	}
	if got, want := TriggerTargets(sql), []string{"stations", "holds", "rental_log", "latest"}; !slices.Equal(got, want) {
		t.Errorf("targets %q, want %q", got, want)
	}
}
