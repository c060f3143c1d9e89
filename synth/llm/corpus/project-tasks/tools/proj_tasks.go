package tools

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// FindMemberArgs are the arguments of find_member.
type FindMemberArgs struct {
	// The member's email address.
	Email string `json:"email"`
}

// FindMember finds a member by email.
func FindMember(args FindMemberArgs) (sdk.Row, error) {
	m, err := sdk.QueryRow(`SELECT id, name, email FROM members WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no member has the email %s", args.Email)
	}
	return m, err
}

// FindProjectArgs are the arguments of find_project.
type FindProjectArgs struct {
	// The project's name, such as Website Relaunch.
	Name string `json:"name"`
}

// FindProject finds a project by name with its lead and members.
func FindProject(args FindProjectArgs) (map[string]any, error) {
	p, err := sdk.QueryRow(`SELECT p.id, p.name, m.name AS lead FROM projects p JOIN members m ON m.id = p.lead_id WHERE lower(p.name) = lower(?)`, strings.TrimSpace(args.Name))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no project is called %s", args.Name)
	} else if err != nil {
		return nil, err
	}
	members, err := sdk.Query(`SELECT m.id, m.name FROM project_members pm JOIN members m ON m.id = pm.member_id WHERE pm.project_id = ? ORDER BY m.name`, p.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"id": p.String("id"), "name": p.String("name"), "lead": p.String("lead"), "members": members}, nil
}

// ListTasksArgs are the arguments of list_tasks.
type ListTasksArgs struct {
	// The project's id from find_project.
	ProjectID string `json:"project_id"`
}

// ListTasks lists a project's tasks.
func ListTasks(args ListTasksArgs) (sdk.Rows, error) {
	if _, err := sdk.QueryRow(`SELECT id FROM projects WHERE id = ?`, strings.TrimSpace(args.ProjectID)); err == sdk.ErrNoRows {
		return sdk.Rows{}, fmt.Errorf("no project has the id %s", args.ProjectID)
	} else if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT t.id, t.title, t.status, a.name AS assignee, r.name AS reviewer, t.due_date FROM tasks t
		LEFT JOIN members a ON a.id = t.assignee_id LEFT JOIN members r ON r.id = t.reviewer_id WHERE t.project_id = ? ORDER BY t.id`, strings.TrimSpace(args.ProjectID))
}

const taskQuery = `SELECT t.id, p.name AS project, t.project_id, t.title, t.status, COALESCE(t.assignee_id, '') AS assignee_id, a.name AS assignee,
	COALESCE(t.reviewer_id, '') AS reviewer_id, r.name AS reviewer, t.due_date FROM tasks t JOIN projects p ON p.id = t.project_id
	LEFT JOIN members a ON a.id = t.assignee_id LEFT JOIN members r ON r.id = t.reviewer_id`

// FindTaskArgs are the arguments of find_task.
type FindTaskArgs struct {
	// The task's title.
	Title string `json:"title"`
}

// FindTask finds a task by its title.
func FindTask(args FindTaskArgs) (sdk.Row, error) {
	t, err := sdk.QueryRow(taskQuery+` WHERE lower(t.title) = lower(?) ORDER BY t.id LIMIT 1`, strings.TrimSpace(args.Title))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no task is called %s", args.Title)
	}
	return t, err
}

func taskRow(id string) (sdk.Row, error) {
	t, err := sdk.QueryRow(taskQuery+` WHERE t.id = ?`, strings.TrimSpace(id))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no task has the id %s", id)
	}
	return t, err
}

// inProject checks that a member belongs to a project.
func inProject(projectID, memberID, who string) error {
	if _, err := sdk.QueryRow(`SELECT id FROM members WHERE id = ?`, memberID); err == sdk.ErrNoRows {
		return fmt.Errorf("no member has the id %s", memberID)
	} else if err != nil {
		return err
	}
	_, err := sdk.QueryRow(`SELECT member_id FROM project_members WHERE project_id = ? AND member_id = ?`, projectID, memberID)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("the %s (%s) is not a member of the project", who, memberID)
	}
	return err
}

// futureDate checks a YYYY-MM-DD date that is not in the past.
func futureDate(s string) (string, error) {
	d, err := time.Parse("2006-01-02", strings.TrimSpace(s))
	if err != nil {
		return "", fmt.Errorf("due date %q: want YYYY-MM-DD", s)
	}
	day := d.Format("2006-01-02")
	if day < sdk.Now().UTC().Format("2006-01-02") {
		return "", fmt.Errorf("the due date %s is in the past", day)
	}
	return day, nil
}

// CreateTaskArgs are the arguments of create_task.
type CreateTaskArgs struct {
	// The acting member's id from find_member.
	MemberID string `json:"member_id"`
	// The project's id.
	ProjectID string `json:"project_id"`
	// The task's title.
	Title string `json:"title"`
	// The assignee's member id.
	AssigneeID string `json:"assignee_id,omitempty"`
	// The due date, YYYY-MM-DD.
	DueDate string `json:"due_date,omitempty"`
}

// CreateTask creates a todo task in a project the member belongs to.
func CreateTask(args CreateTaskArgs) (sdk.Row, error) {
	project := strings.TrimSpace(args.ProjectID)
	if _, err := sdk.QueryRow(`SELECT id FROM projects WHERE id = ?`, project); err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no project has the id %s", args.ProjectID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if err := inProject(project, args.MemberID, "acting member"); err != nil {
		return sdk.Row{}, err
	}
	var assignee, due any
	if args.AssigneeID != "" {
		if err := inProject(project, args.AssigneeID, "assignee"); err != nil {
			return sdk.Row{}, err
		}
		assignee = args.AssigneeID
	}
	if args.DueDate != "" {
		d, err := futureDate(args.DueDate)
		if err != nil {
			return sdk.Row{}, err
		}
		due = d
	}
	title := strings.TrimSpace(args.Title)
	if title == "" {
		return sdk.Row{}, fmt.Errorf("a task needs a title")
	}
	if _, err := sdk.QueryRow(`SELECT id FROM tasks WHERE project_id = ? AND lower(title) = lower(?)`, project, title); err == nil {
		return sdk.Row{}, fmt.Errorf("the project already has a task called %s", title)
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	n, err := sdk.QueryRow(`SELECT COALESCE(max(CAST(substr(id, 3) AS INTEGER)), 0) AS n FROM tasks`)
	if err != nil {
		return sdk.Row{}, err
	}
	id := "T-" + strconv.FormatInt(n.Int("n")+1, 10)
	if _, err := sdk.Exec(`INSERT INTO tasks (id, project_id, title, status, assignee_id, reviewer_id, due_date, created_by) VALUES (?, ?, ?, 'todo', ?, NULL, ?, ?)`,
		id, project, title, assignee, due, args.MemberID); err != nil {
		return sdk.Row{}, err
	}
	return taskRow(id)
}
