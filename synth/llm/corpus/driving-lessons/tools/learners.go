package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// stamp is how times are stored.
const stamp = "2006-01-02T15:04:05Z"

// FindLearnerArgs identify a learner.
type FindLearnerArgs struct {
	// The learner's email.
	Email string `json:"email"`
}

// FindLearner looks a learner up by email.
func FindLearner(args FindLearnerArgs) (map[string]any, error) {
	l, err := sdk.QueryRow(`SELECT id, name, transmission, credits, completed_lessons FROM learners WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no learner with email %q", args.Email)
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"learner_id": l.String("id"), "name": l.String("name"), "transmission": l.String("transmission"), "credits": l.Int("credits"), "completed_lessons": l.Int("completed_lessons")}, nil
}

// ListInstructors lists the instructors and what they teach.
func ListInstructors() (sdk.Rows, error) {
	return sdk.Query(`SELECT name, teaches_manual, teaches_automatic FROM instructors ORDER BY name`)
}

// ListBlocks lists the lesson blocks for sale.
func ListBlocks() (sdk.Rows, error) {
	return sdk.Query(`SELECT name, lessons, price FROM lesson_blocks ORDER BY lessons`)
}

// LearnerArgs name a learner.
type LearnerArgs struct {
	// The learner's id.
	LearnerID string `json:"learner_id"`
}

// ListLessons lists a learner's lessons.
func ListLessons(args LearnerArgs) (sdk.Rows, error) {
	if _, err := learner(args.LearnerID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT l.id AS lesson_id, i.name AS instructor, l.starts_at, l.status FROM lessons l JOIN instructors i ON i.id = l.instructor_id
		WHERE l.learner_id = ? ORDER BY l.starts_at`, args.LearnerID)
}

// BuyBlockArgs name a learner and a block.
type BuyBlockArgs struct {
	// The learner's id.
	LearnerID string `json:"learner_id"`
	// The block's name, such as 5-lesson block.
	BlockName string `json:"block_name"`
}

// BuyBlock buys a block of lessons and adds them as credits.
func BuyBlock(args BuyBlockArgs) (map[string]any, error) {
	l, err := learner(args.LearnerID)
	if err != nil {
		return nil, err
	}
	b, err := sdk.QueryRow(`SELECT id, name, lessons, price FROM lesson_blocks WHERE lower(name) = lower(?)`, strings.TrimSpace(args.BlockName))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no lesson block named %q", args.BlockName)
	}
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO purchases (learner_id, block_id, price, purchased_at) VALUES (?, ?, ?, ?)`,
		args.LearnerID, b.String("id"), b.Float("price"), sdk.Now().UTC().Format(stamp)); err != nil {
		return nil, err
	}
	credits := l.Int("credits") + b.Int("lessons")
	if _, err := sdk.Exec(`UPDATE learners SET credits = ? WHERE id = ?`, credits, args.LearnerID); err != nil {
		return nil, err
	}
	return map[string]any{"block": b.String("name"), "price": b.Float("price"), "credits": credits}, nil
}

// BookTestArgs name a learner and a date.
type BookTestArgs struct {
	// The learner's id.
	LearnerID string `json:"learner_id"`
	// The test date (YYYY-MM-DD).
	Date string `json:"date"`
}

// BookTest books a practical test for a learner with 10 completed lessons.
func BookTest(args BookTestArgs) (map[string]any, error) {
	l, err := learner(args.LearnerID)
	if err != nil {
		return nil, err
	}
	d, err := time.Parse("2006-01-02", strings.TrimSpace(args.Date))
	if err != nil {
		return nil, fmt.Errorf("date is YYYY-MM-DD, not %q", args.Date)
	}
	if !d.After(sdk.Now()) {
		return nil, fmt.Errorf("the test date must be in the future")
	}
	if l.Int("completed_lessons") < 10 {
		return nil, fmt.Errorf("a test needs at least 10 completed lessons; the learner has %d", l.Int("completed_lessons"))
	}
	_, err = sdk.QueryRow(`SELECT id FROM tests WHERE learner_id = ? AND status = 'booked'`, args.LearnerID)
	if err == nil {
		return nil, fmt.Errorf("the learner already has a booked test")
	}
	if err != sdk.ErrNoRows {
		return nil, err
	}
	res, err := sdk.Exec(`INSERT INTO tests (learner_id, test_date, status) VALUES (?, ?, 'booked')`, args.LearnerID, d.Format("2006-01-02"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"test_id": res.LastInsertID, "test_date": d.Format("2006-01-02"), "status": "booked"}, nil
}

func learner(id string) (sdk.Row, error) {
	l, err := sdk.QueryRow(`SELECT id, transmission, credits, completed_lessons FROM learners WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no learner %q", id)
	}
	return l, err
}
