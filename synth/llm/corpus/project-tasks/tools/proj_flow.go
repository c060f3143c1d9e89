package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// AssignTaskArgs are the arguments of assign_task.
type AssignTaskArgs struct {
	// The acting member's id.
	MemberID string `json:"member_id"`
	// The task's id.
	TaskID string `json:"task_id"`
	// The new assignee's member id.
	AssigneeID string `json:"assignee_id"`
}

// AssignTask assigns a task that is not done to a member of its project.
func AssignTask(args AssignTaskArgs) (sdk.Row, error) {
	t, err := taskRow(args.TaskID)
	if err != nil {
		return sdk.Row{}, err
	}
	if err := inProject(t.String("project_id"), args.MemberID, "acting member"); err != nil {
		return sdk.Row{}, err
	}
	if err := inProject(t.String("project_id"), args.AssigneeID, "assignee"); err != nil {
		return sdk.Row{}, err
	}
	if t.String("status") == "done" {
		return sdk.Row{}, fmt.Errorf("task %s is done", t.String("title"))
	}
	if _, err := sdk.Exec(`UPDATE tasks SET assignee_id = ? WHERE id = ?`, args.AssigneeID, t.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return taskRow(t.String("id"))
}

// MoveTaskArgs are the arguments of move_task.
type MoveTaskArgs struct {
	// The acting member's id.
	MemberID string `json:"member_id"`
	// The task's id.
	TaskID string `json:"task_id"`
	// in_progress, review or done.
	Status string `json:"status"`
	// The reviewer's member id, for review.
	ReviewerID string `json:"reviewer_id,omitempty"`
}

// allowed lists the steps a task may take.
func allowed(from, to string) bool {
	switch from + ">" + to {
	case "todo>in_progress", "in_progress>review", "review>done", "review>in_progress":
		return true
	}
	return false
}

// MoveTask moves a task one step along its workflow.
func MoveTask(args MoveTaskArgs) (sdk.Row, error) {
	t, err := taskRow(args.TaskID)
	if err != nil {
		return sdk.Row{}, err
	}
	if err := inProject(t.String("project_id"), args.MemberID, "acting member"); err != nil {
		return sdk.Row{}, err
	}
	to := strings.ToLower(strings.TrimSpace(args.Status))
	if !allowed(t.String("status"), to) {
		return sdk.Row{}, fmt.Errorf("task %s cannot move from %s to %q", t.String("title"), t.String("status"), args.Status)
	}
	reviewer := t.String("reviewer_id")
	switch to {
	case "in_progress":
		if t.String("assignee_id") == "" {
			return sdk.Row{}, fmt.Errorf("task %s has no assignee: assign it first", t.String("title"))
		}
	case "review":
		if args.ReviewerID == "" {
			return sdk.Row{}, fmt.Errorf("moving to review needs a reviewer")
		}
		if err := inProject(t.String("project_id"), args.ReviewerID, "reviewer"); err != nil {
			return sdk.Row{}, err
		}
		if args.ReviewerID == t.String("assignee_id") {
			return sdk.Row{}, fmt.Errorf("the reviewer must not be the assignee")
		}
		reviewer = args.ReviewerID
	}
	var rev any
	if reviewer != "" {
		rev = reviewer
	}
	if _, err := sdk.Exec(`UPDATE tasks SET status = ?, reviewer_id = ? WHERE id = ?`, to, rev, t.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return taskRow(t.String("id"))
}

// SetDueDateArgs are the arguments of set_due_date.
type SetDueDateArgs struct {
	// The acting member's id.
	MemberID string `json:"member_id"`
	// The task's id.
	TaskID string `json:"task_id"`
	// The due date, YYYY-MM-DD.
	DueDate string `json:"due_date"`
}

// SetDueDate sets a task's due date.
func SetDueDate(args SetDueDateArgs) (sdk.Row, error) {
	t, err := taskRow(args.TaskID)
	if err != nil {
		return sdk.Row{}, err
	}
	if err := inProject(t.String("project_id"), args.MemberID, "acting member"); err != nil {
		return sdk.Row{}, err
	}
	d, err := futureDate(args.DueDate)
	if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`UPDATE tasks SET due_date = ? WHERE id = ?`, d, t.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return taskRow(t.String("id"))
}

// AddCommentArgs are the arguments of add_comment.
type AddCommentArgs struct {
	// The acting member's id.
	MemberID string `json:"member_id"`
	// The task's id.
	TaskID string `json:"task_id"`
	// The comment, as the member gives it.
	Body string `json:"body"`
}

// AddComment adds a comment to a task of one of the member's projects.
func AddComment(args AddCommentArgs) (sdk.Row, error) {
	t, err := taskRow(args.TaskID)
	if err != nil {
		return sdk.Row{}, err
	}
	if err := inProject(t.String("project_id"), args.MemberID, "acting member"); err != nil {
		return sdk.Row{}, err
	}
	body := strings.TrimSpace(args.Body)
	if body == "" {
		return sdk.Row{}, fmt.Errorf("a comment needs text")
	}
	res, err := sdk.Exec(`INSERT INTO comments (task_id, author_id, body, posted_at) VALUES (?, ?, ?, ?)`, t.String("id"), args.MemberID, body, sdk.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, task_id, author_id, body, posted_at FROM comments WHERE id = ?`, res.LastInsertID)
}
