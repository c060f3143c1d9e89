package dbmodel

import "testing"

// A judge of the chinook environment found Employee.State offered as an
// enum of one value ('AB'): the eight employees all live in Alberta. A state
// in an address is a place, as open as the city beside it; a state without
// an address around it is still a status.
func TestAddressStateIsNotAnEnum(t *testing.T) {
	path := makeDB(t, `
CREATE TABLE employee (id INTEGER PRIMARY KEY, name TEXT, city TEXT, state TEXT, country TEXT);
INSERT INTO employee VALUES (1, 'a', 'Calgary', 'AB', 'Canada'), (2, 'b', 'Calgary', 'AB', 'Canada'), (3, 'c', 'Edmonton', 'AB', 'Canada'),
  (4, 'd', 'Lethbridge', 'AB', 'Canada');
CREATE TABLE job (id INTEGER PRIMARY KEY, state TEXT);
INSERT INTO job VALUES (1, 'queued'), (2, 'queued'), (3, 'done'), (4, 'done'), (5, 'queued'), (6, 'done');
`)
	m, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e := m.Table("employee").Column("state").Enum; e != nil {
		t.Errorf("employee.state enum = %v, want none (an address part)", e)
	}
	if e := m.Table("job").Column("state").Enum; len(e) != 2 {
		t.Errorf("job.state enum = %v, want [done queued]", e)
	}
}
