package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

type BookLessonArgs struct {
	// Student id
	StudentID string `json:"student_id"`
	// Tutor id
	TutorID string `json:"tutor_id"`
	// Start time, e.g. 2024-06-05T15:00:00Z
	StartsAt string `json:"starts_at"`
	// 30 or 60
	Minutes int `json:"minutes"`
}

// BookLesson books a 30- or 60-minute lesson with a tutor of the student's language and level at a free time, taking one credit per 30 minutes.
func BookLesson(args BookLessonArgs) (sdk.Row, error) {
	s, err := loadStudent(args.StudentID)
	if err != nil {
		return noRow(), err
	}
	t, err := loadTutor(args.TutorID)
	if err != nil {
		return noRow(), err
	}
	if !strings.EqualFold(t.String("language"), s.String("language")) {
		return noRow(), fmt.Errorf("%s teaches %s, not %s", t.String("name"), t.String("language"), s.String("language"))
	}
	if lvl := s.String("level"); lvl < t.String("min_level") || lvl > t.String("max_level") {
		return noRow(), fmt.Errorf("%s teaches levels %s to %s, not %s", t.String("name"), t.String("min_level"), t.String("max_level"), lvl)
	}
	start, err := parseStart(args.StartsAt)
	if err != nil {
		return noRow(), err
	}
	if err := checkFree(t.String("id"), start, args.Minutes, ""); err != nil {
		return noRow(), err
	}
	credits := int64(args.Minutes / 30)
	if s.Int("credits") < credits {
		return noRow(), fmt.Errorf("a %d-minute lesson needs %d credits; the student has %d", args.Minutes, credits, s.Int("credits"))
	}
	next, err := sdk.QueryRow(`SELECT COALESCE(MAX(CAST(SUBSTR(id, 3) AS INTEGER)), 0) + 1 AS n FROM lessons WHERE id LIKE 'L-%'`)
	if err != nil {
		return noRow(), err
	}
	id := fmt.Sprintf("L-%02d", next.Int("n"))
	if _, err := sdk.Exec(`INSERT INTO lessons (id, student_id, tutor_id, starts_at, minutes, credits, status, credits_returned) VALUES (?, ?, ?, ?, ?, ?, 'booked', 0)`,
		id, s.String("id"), t.String("id"), start.Format(stamp), args.Minutes, credits); err != nil {
		return noRow(), err
	}
	if _, err := sdk.Exec(`UPDATE students SET credits = credits - ? WHERE id = ?`, credits, s.String("id")); err != nil {
		return noRow(), err
	}
	return lessonView(id)
}

type RescheduleLessonArgs struct {
	// Student id
	StudentID string `json:"student_id"`
	// Lesson id
	LessonID string `json:"lesson_id"`
	// New start time (UTC)
	StartsAt string `json:"starts_at"`
}

// RescheduleLesson moves a booked lesson to another free time of the same tutor; only 12 hours or more before it starts.
func RescheduleLesson(args RescheduleLessonArgs) (sdk.Row, error) {
	l, err := ownLesson(args.StudentID, args.LessonID)
	if err != nil {
		return noRow(), err
	}
	if l.String("status") != "booked" {
		return noRow(), fmt.Errorf("lesson %s is %s", l.String("id"), l.String("status"))
	}
	current, err := time.Parse(time.RFC3339, l.String("starts_at"))
	if err != nil {
		return noRow(), err
	}
	if current.Sub(sdk.Now()) < 12*time.Hour {
		return noRow(), fmt.Errorf("lesson %s starts at %s, less than 12 hours from now: it can no longer be rescheduled", l.String("id"), l.String("starts_at"))
	}
	start, err := parseStart(args.StartsAt)
	if err != nil {
		return noRow(), err
	}
	if err := checkFree(l.String("tutor_id"), start, int(l.Int("minutes")), l.String("id")); err != nil {
		return noRow(), err
	}
	if _, err := sdk.Exec(`UPDATE lessons SET starts_at = ? WHERE id = ?`, start.Format(stamp), l.String("id")); err != nil {
		return noRow(), err
	}
	return lessonView(l.String("id"))
}

type LessonArgs struct {
	// Student id
	StudentID string `json:"student_id"`
	// Lesson id
	LessonID string `json:"lesson_id"`
}

// CancelLesson cancels a booked lesson: all its credits back 24 hours or more before the start, half (rounded down) later.
func CancelLesson(args LessonArgs) (map[string]any, error) {
	l, err := ownLesson(args.StudentID, args.LessonID)
	if err != nil {
		return nil, err
	}
	if l.String("status") != "booked" {
		return nil, fmt.Errorf("lesson %s is already %s", l.String("id"), l.String("status"))
	}
	start, err := time.Parse(time.RFC3339, l.String("starts_at"))
	if err != nil {
		return nil, err
	}
	if !start.After(sdk.Now()) {
		return nil, fmt.Errorf("lesson %s has already started", l.String("id"))
	}
	back := l.Int("credits")
	if start.Sub(sdk.Now()) < 24*time.Hour {
		back = l.Int("credits") / 2
	}
	if _, err := sdk.Exec(`UPDATE lessons SET status = 'cancelled', credits_returned = ? WHERE id = ?`, back, l.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE students SET credits = credits + ? WHERE id = ?`, back, args.StudentID); err != nil {
		return nil, err
	}
	s, err := loadStudent(args.StudentID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"lesson_id": l.String("id"), "status": "cancelled", "credits_returned": back, "credits": s.Int("credits")}, nil
}

type RateLessonArgs struct {
	// Student id
	StudentID string `json:"student_id"`
	// Lesson id
	LessonID string `json:"lesson_id"`
	// 1 to 5
	Stars int `json:"stars"`
}

// RateLesson rates one of the student's completed lessons (1 to 5 stars), once.
func RateLesson(args RateLessonArgs) (map[string]any, error) {
	l, err := ownLesson(args.StudentID, args.LessonID)
	if err != nil {
		return nil, err
	}
	if l.String("status") != "completed" {
		return nil, fmt.Errorf("lesson %s is %s: only completed lessons can be rated", l.String("id"), l.String("status"))
	}
	if args.Stars < 1 || args.Stars > 5 {
		return nil, errors.New("stars must be 1 to 5")
	}
	if _, err := sdk.QueryRow(`SELECT lesson_id FROM ratings WHERE lesson_id = ?`, l.String("id")); err == nil {
		return nil, fmt.Errorf("lesson %s is already rated", l.String("id"))
	}
	if _, err := sdk.Exec(`INSERT INTO ratings (lesson_id, stars, rated_at) VALUES (?, ?, ?)`, l.String("id"), args.Stars, sdk.Now().UTC().Format(stamp)); err != nil {
		return nil, err
	}
	return map[string]any{"lesson_id": l.String("id"), "stars": args.Stars}, nil
}
