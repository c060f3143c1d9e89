package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

type ListClassesArgs struct {
	// YYYY-MM-DD
	Date string `json:"date"`
	// beginner, intermediate or advanced
	Level string `json:"level,omitempty"`
}

// ListClasses lists a day's group lessons with the places left.
func ListClasses(args ListClassesArgs) (sdk.Rows, error) {
	day, err := parseDay(args.Date)
	if err != nil {
		var none sdk.Rows
		return none, err
	}
	level := strings.ToLower(strings.TrimSpace(args.Level))
	return sdk.Query(`SELECT c.id AS class_id, c.starts_at, c.level, c.price, c.capacity,
		c.capacity - (SELECT COUNT(*) FROM lesson_bookings b WHERE b.class_id = c.id AND b.status = 'booked') AS places_left
		FROM classes c WHERE substr(c.starts_at, 1, 10) = ? AND (? = '' OR c.level = ?) ORDER BY c.starts_at, c.level`,
		day.Format("2006-01-02"), level, level)
}

// ListLessonBookings lists the lesson bookings of every skier on an account.
func ListLessonBookings(args AccountArgs) (sdk.Rows, error) {
	if err := requireAccount(args.AccountID); err != nil {
		var none sdk.Rows
		return none, err
	}
	return sdk.Query(`SELECT b.id AS booking_id, s.name AS skier, b.class_id, c.starts_at, c.level, b.price, b.status, b.refund
		FROM lesson_bookings b JOIN skiers s ON s.id = b.skier_id JOIN classes c ON c.id = b.class_id
		WHERE s.account_id = ? ORDER BY c.starts_at, b.id`, args.AccountID)
}

type BookLessonArgs struct {
	// Account id
	AccountID string `json:"account_id"`
	// Skier id
	SkierID string `json:"skier_id"`
	// Class id
	ClassID string `json:"class_id"`
}

// BookLesson books a skier on the account into a class of their level with places left.
func BookLesson(args BookLessonArgs) (sdk.Row, error) {
	s, err := skierOnAccount(args.AccountID, args.SkierID)
	if err != nil {
		return noRow(), err
	}
	c, err := sdk.QueryRow(`SELECT c.*, c.capacity - (SELECT COUNT(*) FROM lesson_bookings b WHERE b.class_id = c.id AND b.status = 'booked') AS places_left FROM classes c WHERE c.id = ?`, strings.TrimSpace(args.ClassID))
	if errors.Is(err, sdk.ErrNoRows) {
		return noRow(), fmt.Errorf("class %s not found", args.ClassID)
	}
	if err != nil {
		return noRow(), err
	}
	if c.String("level") != s.String("level") {
		return noRow(), fmt.Errorf("%s skis at %s level; class %s is for %s skiers", s.String("name"), s.String("level"), c.String("id"), c.String("level"))
	}
	start, err := time.Parse(time.RFC3339, c.String("starts_at"))
	if err != nil {
		return noRow(), err
	}
	if !start.After(sdk.Now()) {
		return noRow(), fmt.Errorf("class %s has already started", c.String("id"))
	}
	if c.Int("places_left") <= 0 {
		return noRow(), fmt.Errorf("class %s is full", c.String("id"))
	}
	if _, err := sdk.QueryRow(`SELECT id FROM lesson_bookings WHERE class_id = ? AND skier_id = ? AND status = 'booked'`, c.String("id"), s.String("id")); err == nil {
		return noRow(), fmt.Errorf("%s is already booked in class %s", s.String("name"), c.String("id"))
	}
	next, err := sdk.QueryRow(`SELECT COALESCE(MAX(CAST(SUBSTR(id, 4) AS INTEGER)), 0) + 1 AS n FROM lesson_bookings WHERE id LIKE 'LB-%'`)
	if err != nil {
		return noRow(), err
	}
	id := fmt.Sprintf("LB-%02d", next.Int("n"))
	if _, err := sdk.Exec(`INSERT INTO lesson_bookings (id, class_id, skier_id, price, status, refund, booked_at) VALUES (?, ?, ?, ?, 'booked', 0, ?)`,
		id, c.String("id"), s.String("id"), c.Float("price"), nowStamp()); err != nil {
		return noRow(), err
	}
	return sdk.QueryRow(`SELECT b.id AS booking_id, s.name AS skier, b.class_id, c.starts_at, c.level, b.price, b.status FROM lesson_bookings b JOIN skiers s ON s.id = b.skier_id JOIN classes c ON c.id = b.class_id WHERE b.id = ?`, id)
}

type CancelLessonArgs struct {
	// Account id
	AccountID string `json:"account_id"`
	// Booking id
	BookingID string `json:"booking_id"`
}

// CancelLesson cancels a booked lesson; a full refund 24 hours or more before the start.
func CancelLesson(args CancelLessonArgs) (map[string]any, error) {
	if err := requireAccount(args.AccountID); err != nil {
		return nil, err
	}
	b, err := sdk.QueryRow(`SELECT b.id, b.price, b.status, c.starts_at, s.name AS skier FROM lesson_bookings b JOIN skiers s ON s.id = b.skier_id JOIN classes c ON c.id = b.class_id WHERE b.id = ? AND s.account_id = ?`, strings.TrimSpace(args.BookingID), args.AccountID)
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("booking %s not found on account %s", args.BookingID, args.AccountID)
	}
	if err != nil {
		return nil, err
	}
	if b.String("status") != "booked" {
		return nil, fmt.Errorf("booking %s is already %s", args.BookingID, b.String("status"))
	}
	start, err := time.Parse(time.RFC3339, b.String("starts_at"))
	if err != nil {
		return nil, err
	}
	if !start.After(sdk.Now()) {
		return nil, fmt.Errorf("the lesson of booking %s has already started", args.BookingID)
	}
	refund := 0.0
	if start.Sub(sdk.Now()) >= 24*time.Hour {
		refund = b.Float("price")
	}
	if _, err := sdk.Exec(`UPDATE lesson_bookings SET status = 'cancelled', refund = ? WHERE id = ?`, refund, b.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"booking_id": b.String("id"), "skier": b.String("skier"), "starts_at": b.String("starts_at"), "status": "cancelled", "refund": refund}, nil
}
