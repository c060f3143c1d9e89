package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

type FindStudentArgs struct {
	// Student email
	Email string `json:"email"`
}

// FindStudent finds a student by email: id, name, language, level and lesson credits.
func FindStudent(args FindStudentArgs) (sdk.Row, error) {
	s, err := sdk.QueryRow(`SELECT id AS student_id, name, email, language, level, credits FROM students WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if errors.Is(err, sdk.ErrNoRows) {
		return s, fmt.Errorf("no student has the email %s", args.Email)
	}
	return s, err
}

type FindTutorsArgs struct {
	// Language, e.g. Spanish
	Language string `json:"language"`
	// A1, A2, B1, B2 or C1
	Level string `json:"level,omitempty"`
}

// FindTutors lists the tutors of a language (optionally of a level they teach), best rated first.
func FindTutors(args FindTutorsArgs) (sdk.Rows, error) {
	level := strings.ToUpper(strings.TrimSpace(args.Level))
	return sdk.Query(`SELECT id AS tutor_id, name, language, min_level || '-' || max_level AS levels, rating FROM tutors
		WHERE lower(language) = lower(?) AND (? = '' OR (min_level <= ? AND max_level >= ?)) ORDER BY rating DESC, name`,
		strings.TrimSpace(args.Language), level, level, level)
}

type ListFreeTimesArgs struct {
	// Tutor id
	TutorID string `json:"tutor_id"`
	// YYYY-MM-DD
	Date string `json:"date"`
	// 30 or 60
	Minutes int `json:"minutes"`
}

// ListFreeTimes lists the start times (UTC, every 30 minutes) on a date at which a lesson of that length fits the tutor's availability and none of the tutor's booked lessons.
func ListFreeTimes(args ListFreeTimesArgs) (sdk.Rows, error) {
	var none sdk.Rows
	if _, err := loadTutor(args.TutorID); err != nil {
		return none, err
	}
	if _, err := time.Parse("2006-01-02", args.Date); err != nil {
		return none, fmt.Errorf("invalid date %q: use YYYY-MM-DD", args.Date)
	}
	if args.Minutes != 30 && args.Minutes != 60 {
		return none, errors.New("minutes must be 30 or 60")
	}
	span := fmt.Sprintf("+%d minutes", args.Minutes)
	return sdk.Query(`WITH RECURSIVE t(start, wend) AS (
			SELECT starts_at, ends_at FROM availability WHERE tutor_id = ? AND substr(starts_at, 1, 10) = ?
			UNION ALL SELECT strftime('%Y-%m-%dT%H:%M:%SZ', start, '+30 minutes'), wend FROM t WHERE strftime('%Y-%m-%dT%H:%M:%SZ', start, '+30 minutes') < wend)
		SELECT start AS starts_at FROM t
		WHERE strftime('%Y-%m-%dT%H:%M:%SZ', start, ?) <= wend AND start > ?
		AND NOT EXISTS (SELECT 1 FROM lessons l WHERE l.tutor_id = ? AND l.status = 'booked' AND l.starts_at < strftime('%Y-%m-%dT%H:%M:%SZ', t.start, ?)
			AND strftime('%Y-%m-%dT%H:%M:%SZ', l.starts_at, '+' || l.minutes || ' minutes') > t.start)
		ORDER BY start`, args.TutorID, args.Date, span, sdk.Now().UTC().Format(stamp), args.TutorID, span)
}

type StudentArgs struct {
	// Student id
	StudentID string `json:"student_id"`
}

// ListLessons lists a student's lessons with tutor, start, length, credits, status, credits returned and rating.
func ListLessons(args StudentArgs) (sdk.Rows, error) {
	if _, err := loadStudent(args.StudentID); err != nil {
		var none sdk.Rows
		return none, err
	}
	return sdk.Query(`SELECT l.id AS lesson_id, t.name AS tutor, l.starts_at, l.minutes, l.credits, l.status, l.credits_returned,
		(SELECT stars FROM ratings r WHERE r.lesson_id = l.id) AS rating
		FROM lessons l JOIN tutors t ON t.id = l.tutor_id WHERE l.student_id = ? ORDER BY l.starts_at`, args.StudentID)
}

// ListCreditPacks lists the credit packs for sale.
func ListCreditPacks() (sdk.Rows, error) {
	return sdk.Query(`SELECT id AS pack_id, credits, price FROM credit_packs ORDER BY credits`)
}

type BuyCreditsArgs struct {
	// Student id
	StudentID string `json:"student_id"`
	// Pack id
	PackID string `json:"pack_id"`
}

// BuyCredits buys a credit pack for the student and adds its credits; returns the new balance.
func BuyCredits(args BuyCreditsArgs) (map[string]any, error) {
	s, err := loadStudent(args.StudentID)
	if err != nil {
		return nil, err
	}
	p, err := sdk.QueryRow(`SELECT id, credits, price FROM credit_packs WHERE upper(id) = upper(?)`, strings.TrimSpace(args.PackID))
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("credit pack %s not found", args.PackID)
	}
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO purchases (student_id, pack_id, credits, price, purchased_at) VALUES (?, ?, ?, ?, ?)`, s.String("id"), p.String("id"), p.Int("credits"), p.Float("price"), sdk.Now().UTC().Format(stamp)); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE students SET credits = credits + ? WHERE id = ?`, p.Int("credits"), s.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"student_id": s.String("id"), "pack_id": p.String("id"), "credits_added": p.Int("credits"), "price": p.Float("price"), "credits": s.Int("credits") + p.Int("credits")}, nil
}
