package tools

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

const stamp = "2006-01-02T15:04:05Z"

// FindStudentArgs are the arguments of find_student.
type FindStudentArgs struct {
	// The student's email.
	Email string `json:"email"`
}

// FindStudent finds the signed-in student by email.
func FindStudent(args FindStudentArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id AS student_id, name FROM students WHERE lower(email) = ?`, strings.ToLower(strings.TrimSpace(args.Email)))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no student has the email %q", args.Email)
	}
	return row, err
}

func studentExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM students WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no student has the id %q", id)
	}
	return err
}

// StudentArgs name a student.
type StudentArgs struct {
	// The student id find_student returned.
	StudentID string `json:"student_id"`
}

// ListCredits lists the student's lesson credits per instrument.
func ListCredits(args StudentArgs) (sdk.Rows, error) {
	if err := studentExists(args.StudentID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT i.name AS instrument, c.remaining FROM credits c JOIN instruments i ON i.id = c.instrument_id WHERE c.student_id = ? ORDER BY i.name`, args.StudentID)
}

// ListLessons lists the student's lessons.
func ListLessons(args StudentArgs) (sdk.Rows, error) {
	if err := studentExists(args.StudentID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT l.id AS lesson_id, t.name AS teacher, i.name AS instrument, l.starts_at, l.status FROM lessons l
		JOIN teachers t ON t.id = l.teacher_id JOIN instruments i ON i.id = t.instrument_id WHERE l.student_id = ? ORDER BY l.starts_at`, args.StudentID)
}

// ListPacks lists the lesson packs.
func ListPacks() (sdk.Rows, error) {
	return sdk.Query(`SELECT i.name AS instrument, p.lessons, p.price FROM packs p JOIN instruments i ON i.id = p.instrument_id ORDER BY i.name, p.lessons`)
}

// BuyPackArgs are the arguments of buy_pack.
type BuyPackArgs struct {
	// The student id find_student returned.
	StudentID string `json:"student_id"`
	// Piano, Guitar or Violin.
	Instrument string `json:"instrument"`
	// Lessons in the pack, 5 or 10.
	Lessons int `json:"lessons"`
}

// BuyPack buys a lesson pack and adds its lessons to the student's credits.
func BuyPack(args BuyPackArgs) (map[string]any, error) {
	if err := studentExists(args.StudentID); err != nil {
		return nil, err
	}
	p, err := sdk.QueryRow(`SELECT p.id, p.instrument_id, p.lessons, p.price, i.name FROM packs p JOIN instruments i ON i.id = p.instrument_id WHERE lower(i.name) = ? AND p.lessons = ?`,
		strings.ToLower(strings.TrimSpace(args.Instrument)), args.Lessons)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("there is no %d-lesson %s pack", args.Lessons, args.Instrument)
	}
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO purchases (student_id, pack_id, purchased_at, price) VALUES (?, ?, ?, ?)`, args.StudentID, p.String("id"), sdk.Now().UTC().Format(stamp), p.Float("price")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO credits (student_id, instrument_id, remaining) VALUES (?, ?, ?)
		ON CONFLICT (student_id, instrument_id) DO UPDATE SET remaining = remaining + excluded.remaining`, args.StudentID, p.String("instrument_id"), p.Int("lessons")); err != nil {
		return nil, err
	}
	c, err := sdk.QueryRow(`SELECT remaining FROM credits WHERE student_id = ? AND instrument_id = ?`, args.StudentID, p.String("instrument_id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"instrument": p.String("name"), "lessons": p.Int("lessons"), "price": p.Float("price"), "credits_remaining": c.Int("remaining")}, nil
}

func teacherByName(name string) (sdk.Row, error) {
	t, err := sdk.QueryRow(`SELECT t.id, t.name, t.instrument_id, i.name AS instrument FROM teachers t JOIN instruments i ON i.id = t.instrument_id WHERE lower(t.name) = ?`,
		strings.ToLower(strings.TrimSpace(name)))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no teacher is called %q", name)
	}
	return t, err
}

func nextLessonID() (string, error) {
	rows, err := sdk.Query(`SELECT id FROM lessons WHERE id LIKE 'L-%'`)
	if err != nil {
		return "", err
	}
	max := 0
	for _, r := range rows.All() {
		if n, err := strconv.Atoi(strings.TrimPrefix(r.String("id"), "L-")); err == nil && n > max {
			max = n
		}
	}
	return fmt.Sprintf("L-%d", max+1), nil
}

// slotAt is a slot's start as stored, from a date and HH:MM.
func slotAt(date, hhmm string) (string, time.Time, error) {
	at := strings.TrimSpace(date) + "T" + strings.TrimSpace(hhmm) + ":00Z"
	t, err := time.Parse(time.RFC3339, at)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("give the date as YYYY-MM-DD and the time as HH:MM")
	}
	return at, t, nil
}
