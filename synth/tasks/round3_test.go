package tasks_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth"
)

// The judges' third reading of the shipped environments (issue 28,
// naturalness 3.34): what they marked down, as rules over the tasks
// synthesized from the public databases the environments are made from.

// corpusSQL loads ../testdata/corpus/NAME.sql into a SQLite file.
func corpusSQL(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "corpus", name+".sql"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name+".sqlite")
	conn, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Exec(string(b)); err != nil {
		t.Fatal(err)
	}
	return path
}

// markedDown are phrasings the judges scored 2 or 3 as database talk or a
// generator's artifact, with the reason.
var markedDown = []struct {
	re, why string
}{
	{`(?i)\b(the|my) only\b`, `"the only payment of rental 1035": a generator's artifact`},
	{`(?i)shipped via`, "ShipVia is the shipper an order is assigned to: counting orders \"shipped via\" it counted unshipped ones (judged round 3)"},
	{`(?i)reservation flights?\b`, "a link table named by its schema noun"},
	{`(?i)order details?\b`, "a line table named by its schema noun"},
	{`(?i)\bdetails? of (my )?order\b`, `"the details of order 10398": its lines`},
	{`(?i)\binventory\b`, "sakila's inventory rows are copies of a film"},
	{`(?i)job history`, "job_history is someone's past jobs"},
	{`(?i)film text`, "film_text is kept by triggers: not a thing of its own"},
	{`(?i)whose contact name is`, "a contact is a person at the company"},
	{`(?i)with IATA`, `"LAS airport"`},
	{`(?i)the sum of the`, "query talk"},
	{`(?i)the description of the region`, "a region's description is its name"},
	{`(?i)the highest units`, `"the most units in stock"`},
	{`(?i)\b(min|max) salary`, "a column name"},
	{`(?i)employees does my job have`, `"the same job as me"`},
	{`(?i)among the dates of`, "a flight's dates"},
	{`(?i)flight type (one|round)`, `"one-way"`},
	{`(?i)should never have been recorded`, "said of a track, it judges the music"},
	{`(?i)\b(lowest|highest) (leg|seat)\b`, "a position among siblings ranks nothing"},
	{`(?i)latest birth date`, `"who is the youngest"`},
	{`(?i)as their manager`, `"managed by"`},
	{`(?i)what is the units`, `"how many units in stock"`},
	{`(?i)the track named`, `the track "X"`},
	{`(?i)payment date among the payments`, `"the most recent payment"`},
	{`(?i)(most recent|earliest) date of flight`, `"flight HAT093 on 2024-05-13"`},
	{`(?i)(price|prices) of the reservations of flight`, "a sum over a flight's bookings"},
	{`(?i)the track "[^"]*" of the media type`, "a track named by its media type"},
	{`(?i)the date of rental`, `"the rental date" (a rental has a return date too)`},
	{`(?i)the same job as me for me|employees of my job`, `"everyone with my job (me included)"`},
	{`(?i)job of my (past|previous) job`, `"my previous job"`},
}

// TestJudgedRound3 synthesizes five corpus databases and holds every task
// to the rules: none of the marked-down phrasings, and none of the writes
// that broke the domain's sense (a leg's price, a round trip without its
// legs, a flight date deleted, an actor deleted off a film, a job's salary
// range edited through a colleague, the trigger-kept film_text).
func TestJudgedRound3(t *testing.T) {
	if testing.Short() {
		t.Skip("synthesizes five corpus databases")
	}
	var res []*regexp.Regexp
	for _, m := range markedDown {
		res = append(res, regexp.MustCompile(m.re))
	}
	for _, name := range []string{"airline", "northwind", "sakila", "hr", "chinook"} {
		t.Run(name, func(t *testing.T) {
			r := fromDB(t, corpusSQL(t, name), synth.Options{Tasks: 150, Seed: 1})
			for _, task := range r.Tasks {
				if a := task.Answer; a != nil {
					for _, reply := range nonAnswers {
						if acceptsText(t, a.Match, a.Value, reply) {
							t.Errorf("%s: %q: the answer rule %s %q accepts %q", task.ID, task.Instruction, a.Match, a.Value, reply)
						}
					}
				}
				for i, re := range res {
					if re.MatchString(task.Instruction) {
						t.Errorf("%s: %q: %s", task.ID, task.Instruction, markedDown[i].why)
					}
				}
				for i, call := range task.Calls {
					var args map[string]any
					_ = json.Unmarshal(call.Arguments, &args)
					switch {
					case strings.Contains(call.Name, "film_text"):
						t.Errorf("%s calls %s: film_text is the database's own copy of film", task.ID, call.Name)
					case call.Name == "update_reservation" && args["flight_type"] != nil:
						t.Errorf("%s sets a reservation's flight type without its legs", task.ID)
					case (call.Name == "update_reservation_flight" || call.Name == "update_flight_date" || call.Name == "update_invoice_line") && hasPrice(args):
						t.Errorf("%s sets the price of a dated record: %s", task.ID, call.Arguments)
					case call.Name == "update_reservation_flight" && args["date"] != nil:
						t.Errorf("%s moves one leg of a booking to another date", task.ID)
					case call.Name == "update_flight_date" && args["status"] != nil && args["status"] != "cancelled":
						t.Errorf("%s: %q moves a flight's status by hand to %v", task.ID, task.Instruction, args["status"])
					case call.Name == "delete_flight_date":
						t.Errorf("%s deletes a date from a flight's schedule", task.ID)
					case call.Name == "delete_film_actor" && !strings.Contains(task.Instruction, " out of ") && !strings.Contains(task.Instruction, "remove "):
						t.Errorf("%s: %q deletes a film's actor link as a thing of its own", task.ID, task.Instruction)
					case call.Name == "update_job" && i > 0 && strings.HasPrefix(task.Calls[i-1].Name, "get_job_of_"):
						t.Errorf("%s: %q edits a job through one of its holders", task.ID, task.Instruction)
					}
				}
			}
		})
	}
}

// nonAnswers are replies that answer nothing: an answer rule that accepts
// one accepts a wrong solution (judged round 3: "does reservation X have
// insurance?" was checked by the word "no", which "No idea" holds).
var nonAnswers = []string{"No idea, sorry.", "Yes, I can look that up for you.",
	"I could not find it: there is no such record.", "I'm not sure."}

// acceptsText applies a text answer rule as the runtime does (numbers are
// not text: these replies hold none).
func acceptsText(t *testing.T, match, want, got string) bool {
	want, got = strings.TrimSpace(want), strings.TrimSpace(got)
	switch match {
	case "contains":
		return strings.Contains(strings.ToLower(got), strings.ToLower(want))
	case "regex":
		re, err := regexp.Compile(want)
		if err != nil {
			t.Fatal(err)
		}
		return re.MatchString(got)
	}
	return false
}

func hasPrice(args map[string]any) bool {
	for k := range args {
		if strings.Contains(k, "price") || strings.Contains(k, "amount") {
			return true
		}
	}
	return false
}
