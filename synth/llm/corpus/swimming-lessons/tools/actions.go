package tools

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

func stamp() string { return sdk.Now().UTC().Format("2006-01-02T15:04:05Z") }

// EnrolArgs name a child and a class.
type EnrolArgs struct {
	// child id
	ChildID string `json:"child_id"`
	// class id
	ClassID string `json:"class_id"`
}

// EnrolChild enrols a child in a class for the rest of the term (fee unpaid).
// It fails when the class's level is not the one after the child's last
// passed level, the class is full, or the child is already in a class this
// term.
func EnrolChild(args EnrolArgs) (map[string]any, error) {
	ch, err := getChild(args.ChildID)
	if err != nil {
		return nil, err
	}
	c, err := getClass(args.ClassID)
	if err != nil {
		return nil, err
	}
	if err := levelFits(ch, c); err != nil {
		return nil, err
	}
	if _, err := sdk.QueryRow("SELECT id FROM enrolments WHERE child_id = ? AND status = 'enrolled'", ch.String("id")); err == nil {
		return nil, fmt.Errorf("%s is already in a class this term", ch.String("name"))
	} else if !errors.Is(err, sdk.ErrNoRows) {
		return nil, err
	}
	if c.Int("enrolled") >= c.Int("max_size") {
		return nil, fmt.Errorf("class %s is full", c.String("id"))
	}
	h, err := held(c)
	if err != nil {
		return nil, err
	}
	fee := math.Round(float64(c.Int("lessons")-int64(h))*c.Float("fee_per_lesson")*100) / 100
	res, err := sdk.Exec("INSERT INTO enrolments (child_id, class_id, status, fee, fee_status, refund, makeups_used) VALUES (?, ?, 'enrolled', ?, 'unpaid', 0, 0)", ch.String("id"), c.String("id"), fee)
	if err != nil {
		return nil, err
	}
	return enrolmentView(res.LastInsertID)
}

// MoveChildArgs are the arguments of move_child.
type MoveChildArgs struct {
	// enrolment id
	EnrolmentID int64 `json:"enrolment_id"`
	// the new class id
	ClassID string `json:"class_id"`
}

// MoveChild moves an enrolment to another class of the same level that has a
// place; the fee stays.
func MoveChild(args MoveChildArgs) (map[string]any, error) {
	e, err := getEnrolment(args.EnrolmentID)
	if err != nil {
		return nil, err
	}
	if e.String("status") != "enrolled" {
		return nil, fmt.Errorf("enrolment %d is %s", args.EnrolmentID, e.String("status"))
	}
	from, err := getClass(e.String("class_id"))
	if err != nil {
		return nil, err
	}
	to, err := getClass(args.ClassID)
	if err != nil {
		return nil, err
	}
	if to.String("id") == from.String("id") {
		return nil, errors.New("the child is already in that class")
	}
	if to.Int("level") != from.Int("level") {
		return nil, fmt.Errorf("a move keeps the level: class %s is Level %d, not Level %d", to.String("id"), to.Int("level"), from.Int("level"))
	}
	if to.Int("enrolled") >= to.Int("max_size") {
		return nil, fmt.Errorf("class %s is full", to.String("id"))
	}
	if _, err := sdk.Exec("UPDATE enrolments SET class_id = ? WHERE id = ?", to.String("id"), args.EnrolmentID); err != nil {
		return nil, err
	}
	return enrolmentView(args.EnrolmentID)
}

// JoinWaitingList puts a child on a full class's waiting list. It fails when
// the class still has a place, the level does not fit the child, or the
// child is already on that list.
func JoinWaitingList(args EnrolArgs) (map[string]any, error) {
	ch, err := getChild(args.ChildID)
	if err != nil {
		return nil, err
	}
	c, err := getClass(args.ClassID)
	if err != nil {
		return nil, err
	}
	if err := levelFits(ch, c); err != nil {
		return nil, err
	}
	if c.Int("enrolled") < c.Int("max_size") {
		return nil, fmt.Errorf("class %s still has a place: enrol instead", c.String("id"))
	}
	if _, err := sdk.QueryRow("SELECT id FROM waiting_list WHERE child_id = ? AND class_id = ?", ch.String("id"), c.String("id")); err == nil {
		return nil, fmt.Errorf("%s is already on the waiting list of %s", ch.String("name"), c.String("id"))
	} else if !errors.Is(err, sdk.ErrNoRows) {
		return nil, err
	}
	if _, err := sdk.Exec("INSERT INTO waiting_list (child_id, class_id, created_at) VALUES (?, ?, ?)", ch.String("id"), c.String("id"), stamp()); err != nil {
		return nil, err
	}
	n, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM waiting_list WHERE class_id = ?", c.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"child": ch.String("name"), "class_id": c.String("id"), "position": n.Int("n")}, nil
}

// EnrolmentArgs name an enrolment.
type EnrolmentArgs struct {
	// enrolment id
	EnrolmentID int64 `json:"enrolment_id"`
}

// WithdrawChild withdraws an enrolment. Before the class's third lesson the
// lessons still to come are refunded (if the fee was paid); later there is
// no refund.
func WithdrawChild(args EnrolmentArgs) (map[string]any, error) {
	e, err := getEnrolment(args.EnrolmentID)
	if err != nil {
		return nil, err
	}
	if e.String("status") != "enrolled" {
		return nil, fmt.Errorf("enrolment %d is %s", args.EnrolmentID, e.String("status"))
	}
	c, err := getClass(e.String("class_id"))
	if err != nil {
		return nil, err
	}
	h, err := held(c)
	if err != nil {
		return nil, err
	}
	refund := 0.0
	if h < 3 && e.String("fee_status") == "paid" {
		refund = math.Round(float64(c.Int("lessons")-int64(h))*c.Float("fee_per_lesson")*100) / 100
	}
	if _, err := sdk.Exec("UPDATE enrolments SET status = 'withdrawn', refund = ?, withdrawn_at = ? WHERE id = ?", refund, stamp(), args.EnrolmentID); err != nil {
		return nil, err
	}
	return enrolmentView(args.EnrolmentID)
}

// BookMakeupArgs are the arguments of book_makeup.
type BookMakeupArgs struct {
	// enrolment id
	EnrolmentID int64 `json:"enrolment_id"`
	// class id of the make-up
	ClassID string `json:"class_id"`
	// lesson date, YYYY-MM-DD
	Date string `json:"date"`
	// the missed lesson's date, YYYY-MM-DD
	MissedDate string `json:"missed_date"`
}

// BookMakeup books a make-up lesson for an enrolment in a class of the same
// level on one of that class's future lesson dates with a place. It fails
// after two make-ups this term.
func BookMakeup(args BookMakeupArgs) (map[string]any, error) {
	e, err := getEnrolment(args.EnrolmentID)
	if err != nil {
		return nil, err
	}
	if e.String("status") != "enrolled" {
		return nil, fmt.Errorf("enrolment %d is %s", args.EnrolmentID, e.String("status"))
	}
	if e.Int("makeups_used") >= maxMakeups {
		return nil, fmt.Errorf("%s has already had %d make-up lessons this term", e.String("child"), maxMakeups)
	}
	own, err := getClass(e.String("class_id"))
	if err != nil {
		return nil, err
	}
	c, err := getClass(args.ClassID)
	if err != nil {
		return nil, err
	}
	if c.Int("level") != own.Int("level") {
		return nil, fmt.Errorf("a make-up must be in a Level %d class", own.Int("level"))
	}
	date := strings.TrimSpace(args.Date)
	ds, err := lessonDates(c)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(ds, date) || date <= today() {
		return nil, fmt.Errorf("class %s has no future lesson on %s", c.String("id"), date)
	}
	n, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM makeups WHERE class_id = ? AND date = ?", c.String("id"), date)
	if err != nil {
		return nil, err
	}
	if c.Int("enrolled")+n.Int("n") >= c.Int("max_size") {
		return nil, fmt.Errorf("class %s has no place on %s", c.String("id"), date)
	}
	if _, err := sdk.Exec("INSERT INTO makeups (enrolment_id, class_id, date, missed_date) VALUES (?, ?, ?, ?)", args.EnrolmentID, c.String("id"), date, strings.TrimSpace(args.MissedDate)); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE enrolments SET makeups_used = makeups_used + 1 WHERE id = ?", args.EnrolmentID); err != nil {
		return nil, err
	}
	return map[string]any{"child": e.String("child"), "class_id": c.String("id"), "date": date, "makeups_used": e.Int("makeups_used") + 1, "makeups_left": maxMakeups - e.Int("makeups_used") - 1}, nil
}

// PayFee pays an enrolment's unpaid term fee. It fails when it is already paid.
func PayFee(args EnrolmentArgs) (map[string]any, error) {
	e, err := getEnrolment(args.EnrolmentID)
	if err != nil {
		return nil, err
	}
	if e.String("fee_status") != "unpaid" {
		return nil, fmt.Errorf("the fee of enrolment %d is already paid", args.EnrolmentID)
	}
	if _, err := sdk.Exec("UPDATE enrolments SET fee_status = 'paid' WHERE id = ?", args.EnrolmentID); err != nil {
		return nil, err
	}
	return enrolmentView(args.EnrolmentID)
}
