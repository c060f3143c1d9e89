package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

const stamp = "2006-01-02T15:04:05Z"

func noRow() sdk.Row {
	var r sdk.Row
	return r
}

func loadStudent(id string) (sdk.Row, error) {
	s, err := sdk.QueryRow(`SELECT * FROM students WHERE id = ?`, strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return s, fmt.Errorf("student %s not found", id)
	}
	return s, err
}

func loadTutor(id string) (sdk.Row, error) {
	t, err := sdk.QueryRow(`SELECT * FROM tutors WHERE id = ?`, strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return t, fmt.Errorf("tutor %s not found", id)
	}
	return t, err
}

// ownLesson loads one of the student's lessons.
func ownLesson(studentID, lessonID string) (sdk.Row, error) {
	if _, err := loadStudent(studentID); err != nil {
		return noRow(), err
	}
	l, err := sdk.QueryRow(`SELECT * FROM lessons WHERE id = ? AND student_id = ?`, strings.TrimSpace(lessonID), studentID)
	if errors.Is(err, sdk.ErrNoRows) {
		return l, fmt.Errorf("lesson %s not found for student %s", lessonID, studentID)
	}
	return l, err
}

// parseStart reads a lesson start time, which must fall on the hour or half hour.
func parseStart(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(s))
	if err != nil {
		return t, fmt.Errorf("invalid start time %q: use YYYY-MM-DDTHH:MM:SSZ", s)
	}
	t = t.UTC()
	if t.Second() != 0 || (t.Minute() != 0 && t.Minute() != 30) {
		return t, errors.New("lessons start on the hour or half hour")
	}
	return t, nil
}

// checkFree fails unless a lesson of minutes from start fits the tutor's availability and no other booked lesson.
func checkFree(tutorID string, start time.Time, minutes int, skipLesson string) error {
	if minutes != 30 && minutes != 60 {
		return errors.New("a lesson lasts 30 or 60 minutes")
	}
	if !start.After(sdk.Now()) {
		return errors.New("the start time is in the past")
	}
	from := start.Format(stamp)
	to := start.Add(time.Duration(minutes) * time.Minute).Format(stamp)
	if _, err := sdk.QueryRow(`SELECT id FROM availability WHERE tutor_id = ? AND starts_at <= ? AND ends_at >= ?`, tutorID, from, to); errors.Is(err, sdk.ErrNoRows) {
		return fmt.Errorf("the tutor is not available from %s to %s", from, to)
	} else if err != nil {
		return err
	}
	if _, err := sdk.QueryRow(`SELECT id FROM lessons WHERE tutor_id = ? AND status = 'booked' AND id <> ? AND starts_at < ?
		AND strftime('%Y-%m-%dT%H:%M:%SZ', starts_at, '+' || minutes || ' minutes') > ?`, tutorID, skipLesson, to, from); err == nil {
		return fmt.Errorf("the tutor already has a lesson between %s and %s", from, to)
	} else if !errors.Is(err, sdk.ErrNoRows) {
		return err
	}
	return nil
}

func lessonView(id string) (sdk.Row, error) {
	return sdk.QueryRow(`SELECT l.id AS lesson_id, t.name AS tutor, t.language, l.starts_at, l.minutes, l.credits, l.status, l.credits_returned,
		(SELECT stars FROM ratings r WHERE r.lesson_id = l.id) AS rating
		FROM lessons l JOIN tutors t ON t.id = l.tutor_id WHERE l.id = ?`, id)
}
