package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// GetParentArgs are the arguments of get_parent.
type GetParentArgs struct {
	// the parent's email
	Email string `json:"email"`
}

// GetParent finds the signed-in parent by email, with their children: child
// id, name and the last level passed (0 for none).
func GetParent(args GetParentArgs) (map[string]any, error) {
	p, err := sdk.QueryRow("SELECT id, name FROM parents WHERE lower(email) = lower(?)", strings.TrimSpace(args.Email))
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no parent with email %q", args.Email)
	}
	if err != nil {
		return nil, err
	}
	kids, err := sdk.Query("SELECT id AS child_id, name, level_passed FROM children WHERE parent_id = ? ORDER BY name", p.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"parent_id": p.String("id"), "name": p.String("name"), "children": kids}, nil
}

// ListClassesArgs are the arguments of list_classes.
type ListClassesArgs struct {
	// only classes of this level (0: all)
	Level int `json:"level,omitempty"`
}

// ListClasses lists the term's classes, optionally of one level: class id,
// level, weekday, time, first lesson, lessons, lessons already held, places
// left and price per lesson.
func ListClasses(args ListClassesArgs) (map[string]any, error) {
	rows, err := sdk.Query("SELECT id FROM classes WHERE ? = 0 OR level = ? ORDER BY level, id", args.Level, args.Level)
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, r := range rows.All() {
		c, err := getClass(r.String("id"))
		if err != nil {
			return nil, err
		}
		h, err := held(c)
		if err != nil {
			return nil, err
		}
		out = append(out, map[string]any{"class_id": c.String("id"), "level": c.Int("level"), "weekday": c.String("weekday"), "time": c.String("time"), "first_lesson": c.String("first_lesson"), "lessons": c.Int("lessons"), "lessons_held": h, "places_left": c.Int("max_size") - c.Int("enrolled"), "price_per_lesson": c.Float("fee_per_lesson")})
	}
	return map[string]any{"classes": out}, nil
}

// ChildArgs name a child.
type ChildArgs struct {
	// child id
	ChildID string `json:"child_id"`
}

// ListEnrolments lists a child's enrolments: enrolment id, class, status,
// fee, fee status, refund, make-ups used, lessons held and lessons left.
func ListEnrolments(args ChildArgs) (map[string]any, error) {
	if _, err := getChild(args.ChildID); err != nil {
		return nil, err
	}
	rows, err := sdk.Query("SELECT id FROM enrolments WHERE child_id = ? ORDER BY id", args.ChildID)
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, r := range rows.All() {
		v, err := enrolmentView(r.Int("id"))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return map[string]any{"child_id": args.ChildID, "enrolments": out}, nil
}
