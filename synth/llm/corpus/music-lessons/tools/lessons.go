package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// FindSlotsArgs name a teacher and a date.
type FindSlotsArgs struct {
	// Teacher name such as Ada Brooks.
	TeacherName string `json:"teacher_name"`
	// Date YYYY-MM-DD.
	Date string `json:"date"`
}

// FindSlots lists a teacher's open slots on a date.
func FindSlots(args FindSlotsArgs) (map[string]any, error) {
	t, err := teacherByName(args.TeacherName)
	if err != nil {
		return nil, err
	}
	slots, err := sdk.Query(`SELECT substr(starts_at, 12, 5) AS time FROM teacher_slots WHERE teacher_id = ? AND substr(starts_at, 1, 10) = ? AND is_open = 1 ORDER BY starts_at`,
		t.String("id"), strings.TrimSpace(args.Date))
	if err != nil {
		return nil, err
	}
	return map[string]any{"teacher": t.String("name"), "instrument": t.String("instrument"), "open_slots": slots}, nil
}

// BookLessonArgs are the arguments of book_lesson.
type BookLessonArgs struct {
	// The student id find_student returned.
	StudentID string `json:"student_id"`
	// The teacher's name.
	TeacherName string `json:"teacher_name"`
	// Date YYYY-MM-DD.
	Date string `json:"date"`
	// Start time HH:MM.
	Time string `json:"time"`
}

// BookLesson books a lesson in an open slot using one credit.
func BookLesson(args BookLessonArgs) (map[string]any, error) {
	if err := studentExists(args.StudentID); err != nil {
		return nil, err
	}
	t, err := teacherByName(args.TeacherName)
	if err != nil {
		return nil, err
	}
	at, start, err := slotAt(args.Date, args.Time)
	if err != nil {
		return nil, err
	}
	if !start.After(sdk.Now()) {
		return nil, fmt.Errorf("a lesson must be in the future")
	}
	slot, err := sdk.QueryRow(`SELECT id FROM teacher_slots WHERE teacher_id = ? AND starts_at = ? AND is_open = 1`, t.String("id"), at)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("%s has no open slot on %s at %s", t.String("name"), args.Date, args.Time)
	}
	if err != nil {
		return nil, err
	}
	c, err := sdk.QueryRow(`SELECT id, remaining FROM credits WHERE student_id = ? AND instrument_id = ?`, args.StudentID, t.String("instrument_id"))
	if err == sdk.ErrNoRows || (err == nil && c.Int("remaining") < 1) {
		return nil, fmt.Errorf("no %s lesson credits left: buy a pack first", t.String("instrument"))
	}
	if err != nil {
		return nil, err
	}
	id, err := nextLessonID()
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO lessons (id, student_id, teacher_id, starts_at, status, created_at) VALUES (?, ?, ?, ?, 'booked', ?)`,
		id, args.StudentID, t.String("id"), at, sdk.Now().UTC().Format(stamp)); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE credits SET remaining = remaining - 1 WHERE id = ?`, c.Int("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE teacher_slots SET is_open = 0 WHERE id = ?`, slot.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"lesson_id": id, "teacher": t.String("name"), "starts_at": at, "credits_remaining": c.Int("remaining") - 1}, nil
}

func studentLesson(studentID, lessonID string) (sdk.Row, error) {
	if err := studentExists(studentID); err != nil {
		return sdk.Row{}, err
	}
	l, err := sdk.QueryRow(`SELECT l.id, l.teacher_id, l.starts_at, l.status, t.instrument_id FROM lessons l JOIN teachers t ON t.id = l.teacher_id WHERE l.id = ? AND l.student_id = ?`,
		strings.ToUpper(strings.TrimSpace(lessonID)), studentID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("lesson %q is not one of this student's lessons", lessonID)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if l.String("status") != "booked" {
		return sdk.Row{}, fmt.Errorf("lesson %s is %s", l.String("id"), l.String("status"))
	}
	return l, nil
}

// RescheduleArgs are the arguments of reschedule_lesson.
type RescheduleArgs struct {
	// The student id find_student returned.
	StudentID string `json:"student_id"`
	// Lesson id such as L-4002.
	LessonID string `json:"lesson_id"`
	// New date YYYY-MM-DD.
	Date string `json:"date"`
	// New start time HH:MM.
	Time string `json:"time"`
}

// RescheduleLesson moves a lesson to another open slot of the same teacher.
func RescheduleLesson(args RescheduleArgs) (map[string]any, error) {
	l, err := studentLesson(args.StudentID, args.LessonID)
	if err != nil {
		return nil, err
	}
	old, err := time.Parse(time.RFC3339, l.String("starts_at"))
	if err != nil {
		return nil, err
	}
	if old.Sub(sdk.Now()) < 24*time.Hour {
		return nil, fmt.Errorf("lesson %s starts within 24 hours and can no longer be rescheduled", l.String("id"))
	}
	at, start, err := slotAt(args.Date, args.Time)
	if err != nil {
		return nil, err
	}
	if !start.After(sdk.Now()) {
		return nil, fmt.Errorf("the new time must be in the future")
	}
	slot, err := sdk.QueryRow(`SELECT id FROM teacher_slots WHERE teacher_id = ? AND starts_at = ? AND is_open = 1`, l.String("teacher_id"), at)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("the teacher has no open slot on %s at %s", args.Date, args.Time)
	}
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE teacher_slots SET is_open = 1 WHERE teacher_id = ? AND starts_at = ?`, l.String("teacher_id"), l.String("starts_at")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE teacher_slots SET is_open = 0 WHERE id = ?`, slot.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE lessons SET starts_at = ? WHERE id = ?`, at, l.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"lesson_id": l.String("id"), "starts_at": at, "status": "booked"}, nil
}

// CancelLessonArgs name a lesson.
type CancelLessonArgs struct {
	// The student id find_student returned.
	StudentID string `json:"student_id"`
	// Lesson id.
	LessonID string `json:"lesson_id"`
}

// CancelLesson cancels a lesson: the credit comes back only 24 hours or more ahead.
func CancelLesson(args CancelLessonArgs) (map[string]any, error) {
	l, err := studentLesson(args.StudentID, args.LessonID)
	if err != nil {
		return nil, err
	}
	start, err := time.Parse(time.RFC3339, l.String("starts_at"))
	if err != nil {
		return nil, err
	}
	status, refunded := "late_cancelled", false
	if start.Sub(sdk.Now()) >= 24*time.Hour {
		status, refunded = "cancelled", true
		if _, err := sdk.Exec(`UPDATE credits SET remaining = remaining + 1 WHERE student_id = ? AND instrument_id = ?`, args.StudentID, l.String("instrument_id")); err != nil {
			return nil, err
		}
	}
	if _, err := sdk.Exec(`UPDATE lessons SET status = ? WHERE id = ?`, status, l.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE teacher_slots SET is_open = 1 WHERE teacher_id = ? AND starts_at = ?`, l.String("teacher_id"), l.String("starts_at")); err != nil {
		return nil, err
	}
	return map[string]any{"lesson_id": l.String("id"), "status": status, "credit_returned": refunded}, nil
}
