package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// BookLessonArgs describe a lesson.
type BookLessonArgs struct {
	// The learner's id.
	LearnerID string `json:"learner_id"`
	// The instructor's name.
	InstructorName string `json:"instructor_name"`
	// The date (YYYY-MM-DD).
	Date string `json:"date"`
	// The start time (HH:MM).
	Time string `json:"time"`
}

// BookLesson books a lesson using one credit.
func BookLesson(args BookLessonArgs) (map[string]any, error) {
	l, err := learner(args.LearnerID)
	if err != nil {
		return nil, err
	}
	if l.Int("credits") < 1 {
		return nil, fmt.Errorf("the learner has no lesson credits: buy a block first")
	}
	in, at, err := suitableSlot(l, args.InstructorName, args.Date, args.Time, 0)
	if err != nil {
		return nil, err
	}
	res, err := sdk.Exec(`INSERT INTO lessons (learner_id, instructor_id, starts_at, status, created_at) VALUES (?, ?, ?, 'booked', ?)`,
		args.LearnerID, in.String("id"), at, sdk.Now().UTC().Format(stamp))
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE learners SET credits = credits - 1 WHERE id = ?`, args.LearnerID); err != nil {
		return nil, err
	}
	return map[string]any{"lesson_id": res.LastInsertID, "instructor": in.String("name"), "starts_at": at, "status": "booked", "credits": l.Int("credits") - 1}, nil
}

// RescheduleLessonArgs name a lesson and its new time.
type RescheduleLessonArgs struct {
	// The learner's id.
	LearnerID string `json:"learner_id"`
	// The lesson's id.
	LessonID int64 `json:"lesson_id"`
	// The new date (YYYY-MM-DD).
	Date string `json:"date"`
	// The new start time (HH:MM).
	Time string `json:"time"`
	// A new instructor; default the same.
	InstructorName *string `json:"instructor_name,omitempty"`
}

// RescheduleLesson moves a booked lesson, keeping its credit.
func RescheduleLesson(args RescheduleLessonArgs) (map[string]any, error) {
	l, err := learner(args.LearnerID)
	if err != nil {
		return nil, err
	}
	lesson, err := bookedLesson(args.LearnerID, args.LessonID)
	if err != nil {
		return nil, err
	}
	name := lesson.String("instructor")
	if args.InstructorName != nil && strings.TrimSpace(*args.InstructorName) != "" {
		name = *args.InstructorName
	}
	in, at, err := suitableSlot(l, name, args.Date, args.Time, args.LessonID)
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE lessons SET instructor_id = ?, starts_at = ? WHERE id = ?`, in.String("id"), at, args.LessonID); err != nil {
		return nil, err
	}
	return map[string]any{"lesson_id": args.LessonID, "instructor": in.String("name"), "starts_at": at, "status": "booked"}, nil
}

// CancelLessonArgs name a lesson.
type CancelLessonArgs struct {
	// The learner's id.
	LearnerID string `json:"learner_id"`
	// The lesson's id.
	LessonID int64 `json:"lesson_id"`
}

// CancelLesson cancels a lesson; under 48 hours ahead the credit is lost.
func CancelLesson(args CancelLessonArgs) (map[string]any, error) {
	l, err := learner(args.LearnerID)
	if err != nil {
		return nil, err
	}
	lesson, err := bookedLesson(args.LearnerID, args.LessonID)
	if err != nil {
		return nil, err
	}
	start, err := time.Parse(stamp, lesson.String("starts_at"))
	if err != nil {
		return nil, err
	}
	status, credits := "late_cancelled", l.Int("credits")
	if start.Sub(sdk.Now()) >= 48*time.Hour {
		status, credits = "cancelled", credits+1
	}
	if _, err := sdk.Exec(`UPDATE lessons SET status = ? WHERE id = ?`, status, args.LessonID); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE learners SET credits = ? WHERE id = ?`, credits, args.LearnerID); err != nil {
		return nil, err
	}
	return map[string]any{"lesson_id": args.LessonID, "starts_at": lesson.String("starts_at"), "status": status, "credit_returned": status == "cancelled", "credits": credits}, nil
}

// suitableSlot finds the instructor and checks the time for a learner.
func suitableSlot(l sdk.Row, instructor, date, clock string, ignore int64) (sdk.Row, string, error) {
	in, err := sdk.QueryRow(`SELECT id, name, teaches_manual, teaches_automatic FROM instructors WHERE lower(name) = lower(?)`, strings.TrimSpace(instructor))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, "", fmt.Errorf("no instructor named %q", instructor)
	}
	if err != nil {
		return sdk.Row{}, "", err
	}
	if !in.Bool("teaches_" + l.String("transmission")) {
		return sdk.Row{}, "", fmt.Errorf("%s does not teach %s", in.String("name"), l.String("transmission"))
	}
	t, err := time.Parse("2006-01-02 15:04", strings.TrimSpace(date)+" "+strings.TrimSpace(clock))
	if err != nil {
		return sdk.Row{}, "", fmt.Errorf("give the date as YYYY-MM-DD and the time as HH:MM")
	}
	if t.Minute() != 0 || t.Hour() < 9 || t.Hour() > 17 {
		return sdk.Row{}, "", fmt.Errorf("lessons start on the hour between 09:00 and 17:00")
	}
	if !t.After(sdk.Now()) {
		return sdk.Row{}, "", fmt.Errorf("%s is in the past", t.Format("2006-01-02 15:04"))
	}
	at := t.Format(stamp)
	_, err = sdk.QueryRow(`SELECT id FROM lessons WHERE instructor_id = ? AND starts_at = ? AND status = 'booked' AND id <> ?`, in.String("id"), at, ignore)
	if err == nil {
		return sdk.Row{}, "", fmt.Errorf("%s is not free at %s", in.String("name"), t.Format("2006-01-02 15:04"))
	}
	if err != sdk.ErrNoRows {
		return sdk.Row{}, "", err
	}
	return in, at, nil
}

func bookedLesson(learnerID string, id int64) (sdk.Row, error) {
	l, err := sdk.QueryRow(`SELECT l.id, l.starts_at, l.status, i.name AS instructor FROM lessons l JOIN instructors i ON i.id = l.instructor_id
		WHERE l.id = ? AND l.learner_id = ?`, id, learnerID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the learner has no lesson %d", id)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if l.String("status") != "booked" {
		return sdk.Row{}, fmt.Errorf("lesson %d is %s", id, l.String("status"))
	}
	return l, nil
}
