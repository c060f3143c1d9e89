package tools

import (
	"errors"
	"fmt"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// maxMakeups is how many make-up lessons a child may have a term.
const maxMakeups = 2

func today() string { return sdk.Now().UTC().Format("2006-01-02") }

// lessonDates are a class's weekly lesson dates.
func lessonDates(c sdk.Row) ([]string, error) {
	first, err := time.Parse("2006-01-02", c.String("first_lesson"))
	if err != nil {
		return nil, err
	}
	var out []string
	for i := 0; i < int(c.Int("lessons")); i++ {
		out = append(out, first.AddDate(0, 0, 7*i).Format("2006-01-02"))
	}
	return out, nil
}

// held counts the lessons before today.
func held(c sdk.Row) (int, error) {
	ds, err := lessonDates(c)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, d := range ds {
		if d < today() {
			n++
		}
	}
	return n, nil
}

func getClass(id string) (sdk.Row, error) {
	c, err := sdk.QueryRow("SELECT c.id, c.level, c.weekday, c.time, c.first_lesson, c.lessons, c.max_size, c.fee_per_lesson, (SELECT COUNT(*) FROM enrolments e WHERE e.class_id = c.id AND e.status = 'enrolled') AS enrolled FROM classes c WHERE c.id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return c, fmt.Errorf("no class with id %q", id)
	}
	return c, err
}

func getChild(id string) (sdk.Row, error) {
	c, err := sdk.QueryRow("SELECT id, parent_id, name, level_passed FROM children WHERE id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return c, fmt.Errorf("no child with id %q", id)
	}
	return c, err
}

// levelFits fails when the class is not the level after the child's last passed one.
func levelFits(child, class sdk.Row) error {
	if class.Int("level") != child.Int("level_passed")+1 {
		return fmt.Errorf("%s has passed level %d, so can join only Level %d classes, not Level %d", child.String("name"), child.Int("level_passed"), child.Int("level_passed")+1, class.Int("level"))
	}
	return nil
}

func getEnrolment(id int64) (sdk.Row, error) {
	e, err := sdk.QueryRow("SELECT e.id, e.child_id, ch.name AS child, e.class_id, e.status, e.fee, e.fee_status, e.refund, e.makeups_used FROM enrolments e JOIN children ch ON ch.id = e.child_id WHERE e.id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return e, fmt.Errorf("no enrolment with id %d", id)
	}
	return e, err
}

// enrolmentView is an enrolment with its class and lessons.
func enrolmentView(id int64) (map[string]any, error) {
	e, err := getEnrolment(id)
	if err != nil {
		return nil, err
	}
	c, err := getClass(e.String("class_id"))
	if err != nil {
		return nil, err
	}
	h, err := held(c)
	if err != nil {
		return nil, err
	}
	return map[string]any{"enrolment_id": e.Int("id"), "child": e.String("child"), "class_id": c.String("id"), "class": fmt.Sprintf("Level %d, %s %s", c.Int("level"), c.String("weekday"), c.String("time")), "status": e.String("status"), "fee": e.Float("fee"), "fee_status": e.String("fee_status"), "refund": e.Float("refund"), "makeups_used": e.Int("makeups_used"), "lessons_held": h, "lessons_left": c.Int("lessons") - int64(h)}, nil
}
