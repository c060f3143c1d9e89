package tools

import (
	"fmt"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// ListEnrolmentsArgs are the arguments of list_enrolments.
type ListEnrolmentsArgs struct {
	// The student's id from find_student.
	StudentID string `json:"student_id"`
	// Only this term, such as Fall 2024.
	Term string `json:"term,omitempty"`
}

// ListEnrolments lists a student's enrolments with section, course, credits,
// term, instructor, status and grade. Fails for an unknown student.
func ListEnrolments(args ListEnrolmentsArgs) (sdk.Rows, error) {
	if err := studentExists(args.StudentID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT e.id AS enrolment_id, e.section_id, s.course_code, c.title, c.credits, s.term, s.instructor,
			e.status, coalesce(e.grade, '') AS grade, e.enrolled_at, coalesce(e.dropped_at, '') AS dropped_at
		FROM enrolments e JOIN sections s ON s.id = e.section_id JOIN courses c ON c.code = s.course_code
		WHERE e.student_id = ? AND (? = '' OR lower(s.term) = lower(?))
		ORDER BY e.enrolled_at, e.id`, args.StudentID, args.Term, args.Term)
}

func studentExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM students WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no student has the id %s", id)
	}
	return err
}

// EnrolArgs are the arguments of enrol.
type EnrolArgs struct {
	// The student's id from find_student.
	StudentID string `json:"student_id"`
	// The section's id from search_sections.
	SectionID string `json:"section_id"`
}

// Enrol enrols the student in a section and returns the new enrolment.
// Fails for an unknown student or section, a second section of the same
// course in the term, a full section, a missing prerequisite, or a term's
// credits above the student's limit.
func Enrol(args EnrolArgs) (sdk.Row, error) {
	student, err := sdk.QueryRow(`SELECT id, name, credit_limit FROM students WHERE id = ?`, args.StudentID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no student has the id %s", args.StudentID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	sec, err := sdk.QueryRow(`SELECT s.id, s.course_code, s.term, s.seats, c.credits, coalesce(c.prerequisite_code, '') AS prereq
		FROM sections s JOIN courses c ON c.code = s.course_code WHERE s.id = ?`, args.SectionID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no section has the id %s", args.SectionID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	course, term := sec.String("course_code"), sec.String("term")
	held, err := sdk.QueryRow(`SELECT e.section_id FROM enrolments e JOIN sections s ON s.id = e.section_id
		WHERE e.student_id = ? AND e.status = 'enrolled' AND s.course_code = ? AND s.term = ?`, args.StudentID, course, term)
	if err == nil {
		return sdk.Row{}, fmt.Errorf("the student already holds section %s of %s in %s: drop it first", held.String("section_id"), course, term)
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	taken, err := sdk.QueryRow(`SELECT count(*) AS n FROM enrolments WHERE section_id = ? AND status = 'enrolled'`, args.SectionID)
	if err != nil {
		return sdk.Row{}, err
	}
	if taken.Int("n") >= sec.Int("seats") {
		return sdk.Row{}, fmt.Errorf("section %s is full: no free seat", args.SectionID)
	}
	if pre := sec.String("prereq"); pre != "" {
		_, err := sdk.QueryRow(`SELECT e.id FROM enrolments e JOIN sections s ON s.id = e.section_id
			WHERE e.student_id = ? AND s.course_code = ? AND e.status = 'completed' AND coalesce(e.grade, '') NOT IN ('', 'F')`, args.StudentID, pre)
		if err == sdk.ErrNoRows {
			return sdk.Row{}, fmt.Errorf("%s requires %s, which the student has not completed", course, pre)
		} else if err != nil {
			return sdk.Row{}, err
		}
	}
	load, err := sdk.QueryRow(`SELECT coalesce(sum(c.credits), 0) AS credits FROM enrolments e JOIN sections s ON s.id = e.section_id
		JOIN courses c ON c.code = s.course_code WHERE e.student_id = ? AND e.status = 'enrolled' AND s.term = ?`, args.StudentID, term)
	if err != nil {
		return sdk.Row{}, err
	}
	if total := load.Int("credits") + sec.Int("credits"); total > student.Int("credit_limit") {
		return sdk.Row{}, fmt.Errorf("enrolling would bring %s to %d credits, above the limit of %d", term, total, student.Int("credit_limit"))
	}
	res, err := sdk.Exec(`INSERT INTO enrolments (student_id, section_id, status, grade, enrolled_at, dropped_at) VALUES (?, ?, 'enrolled', NULL, ?, NULL)`,
		args.StudentID, args.SectionID, sdk.Now().Format(time.RFC3339))
	if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id AS enrolment_id, student_id, section_id, status, enrolled_at FROM enrolments WHERE id = ?`, res.LastInsertID)
}

// DropSectionArgs are the arguments of drop_section.
type DropSectionArgs struct {
	// The student's id from find_student.
	StudentID string `json:"student_id"`
	// The section's id.
	SectionID string `json:"section_id"`
}

// DropSection drops the student's current enrolment in a section and
// returns it. Fails when the student is not currently enrolled there.
func DropSection(args DropSectionArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id FROM enrolments WHERE student_id = ? AND section_id = ? AND status = 'enrolled'`, args.StudentID, args.SectionID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("student %s is not currently enrolled in section %s", args.StudentID, args.SectionID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`UPDATE enrolments SET status = 'dropped', dropped_at = ? WHERE id = ?`, sdk.Now().Format(time.RFC3339), row.Int("id")); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id AS enrolment_id, student_id, section_id, status, enrolled_at, dropped_at FROM enrolments WHERE id = ?`, row.Int("id"))
}
