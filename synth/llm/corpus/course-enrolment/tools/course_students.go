package tools

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// FindStudentArgs are the arguments of find_student.
type FindStudentArgs struct {
	// The student's email address.
	Email string `json:"email"`
}

// FindStudent finds a student by email. Returns id, name, email and
// credit_limit; fails when no student has that email.
func FindStudent(args FindStudentArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, name, email, credit_limit FROM students WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no student has the email %s", args.Email)
	}
	return row, err
}

// GetCourseArgs are the arguments of get_course.
type GetCourseArgs struct {
	// Course code, such as CS201.
	Code string `json:"code"`
}

// GetCourse returns a course by its code: code, title, credits and
// prerequisite_code (empty when none). Fails for an unknown code.
func GetCourse(args GetCourseArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT code, title, credits, coalesce(prerequisite_code, '') AS prerequisite_code FROM courses WHERE upper(code) = upper(?)`, strings.TrimSpace(args.Code))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no course has the code %s", args.Code)
	}
	return row, err
}

// SearchSectionsArgs are the arguments of search_sections.
type SearchSectionsArgs struct {
	// Course code, such as MATH101.
	CourseCode string `json:"course_code,omitempty"`
	// Term, such as Fall 2024.
	Term string `json:"term,omitempty"`
	// Part of the instructor's name, such as Ruiz.
	Instructor string `json:"instructor,omitempty"`
}

// SearchSections lists the sections matching every filter given, with the
// course title and credits, capacity, enrolled count and free seats.
func SearchSections(args SearchSectionsArgs) (sdk.Rows, error) {
	return sdk.Query(`SELECT s.id AS section_id, s.course_code, c.title, c.credits, s.term, s.instructor, s.schedule,
			s.seats, (SELECT count(*) FROM enrolments e WHERE e.section_id = s.id AND e.status = 'enrolled') AS enrolled,
			s.seats - (SELECT count(*) FROM enrolments e WHERE e.section_id = s.id AND e.status = 'enrolled') AS free_seats
		FROM sections s JOIN courses c ON c.code = s.course_code
		WHERE (? = '' OR upper(s.course_code) = upper(?))
		  AND (? = '' OR lower(s.term) = lower(?))
		  AND (? = '' OR lower(s.instructor) LIKE '%' || lower(?) || '%')
		ORDER BY s.term, s.course_code, s.id`,
		args.CourseCode, args.CourseCode, args.Term, args.Term, args.Instructor, args.Instructor)
}
