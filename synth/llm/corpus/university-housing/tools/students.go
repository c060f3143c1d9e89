package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// FindStudentArgs identify a student.
type FindStudentArgs struct {
	// The student's email.
	Email string `json:"email"`
}

// FindStudent looks a student up by email.
func FindStudent(args FindStudentArgs) (map[string]any, error) {
	s, err := sdk.QueryRow(`SELECT id, name, email FROM students WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no student with email %q", args.Email)
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"student_id": s.String("id"), "name": s.String("name"), "email": s.String("email")}, nil
}

// StudentArgs name a student.
type StudentArgs struct {
	// The student's id.
	StudentID string `json:"student_id"`
}

// ListAllocations lists a student's room allocations.
func ListAllocations(args StudentArgs) (sdk.Rows, error) {
	if err := studentExists(args.StudentID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT a.id AS allocation_id, t.name AS term, a.room_id, h.name AS hall, r.room_type, r.rent_per_term, a.status
		FROM allocations a JOIN rooms r ON r.id = a.room_id JOIN halls h ON h.id = r.hall_id JOIN terms t ON t.id = a.term_id
		WHERE a.student_id = ? ORDER BY t.starts_on, a.id`, args.StudentID)
}

// ReportMaintenanceArgs describe a maintenance issue.
type ReportMaintenanceArgs struct {
	// The student's id.
	StudentID string `json:"student_id"`
	// plumbing, electrical, heating or other.
	Category string `json:"category"`
	// normal or urgent.
	Priority string `json:"priority"`
	// What is wrong.
	Description string `json:"description"`
}

// ReportMaintenance reports an issue for the student's current room.
func ReportMaintenance(args ReportMaintenanceArgs) (map[string]any, error) {
	if err := studentExists(args.StudentID); err != nil {
		return nil, err
	}
	cat, prio := strings.ToLower(strings.TrimSpace(args.Category)), strings.ToLower(strings.TrimSpace(args.Priority))
	switch cat {
	case "plumbing", "electrical", "heating", "other":
	default:
		return nil, fmt.Errorf("category must be plumbing, electrical, heating or other, not %q", args.Category)
	}
	if prio != "normal" && prio != "urgent" {
		return nil, fmt.Errorf("priority must be normal or urgent, not %q", args.Priority)
	}
	if strings.TrimSpace(args.Description) == "" {
		return nil, fmt.Errorf("describe the issue")
	}
	now := sdk.Now().UTC()
	room, err := sdk.QueryRow(`SELECT a.room_id FROM allocations a JOIN terms t ON t.id = a.term_id
		WHERE a.student_id = ? AND a.status = 'active' AND t.starts_on <= ? AND t.ends_on >= ?`, args.StudentID, now.Format("2006-01-02"), now.Format("2006-01-02"))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("the student has no room in the current term")
	}
	if err != nil {
		return nil, err
	}
	res, err := sdk.Exec(`INSERT INTO maintenance_requests (student_id, room_id, category, priority, description, status, reported_at) VALUES (?, ?, ?, ?, ?, 'open', ?)`,
		args.StudentID, room.String("room_id"), cat, prio, strings.TrimSpace(args.Description), now.Format(time.RFC3339))
	if err != nil {
		return nil, err
	}
	return map[string]any{"request_id": res.LastInsertID, "room_id": room.String("room_id"), "category": cat, "priority": prio, "status": "open"}, nil
}

// GetRentBalance returns a student's unpaid rent charges and their total.
func GetRentBalance(args StudentArgs) (map[string]any, error) {
	if err := studentExists(args.StudentID); err != nil {
		return nil, err
	}
	rows, err := sdk.Query(`SELECT t.name AS term, c.amount, c.due_on FROM rent_charges c JOIN terms t ON t.id = c.term_id
		WHERE c.student_id = ? AND c.status = 'unpaid' ORDER BY c.due_on`, args.StudentID)
	if err != nil {
		return nil, err
	}
	total := 0.0
	for _, r := range rows.All() {
		total += r.Float("amount")
	}
	return map[string]any{"unpaid_charges": rows, "unpaid_balance": float64(int64(total*100+0.5)) / 100}, nil
}

func studentExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM students WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no student %q", id)
	}
	return err
}
