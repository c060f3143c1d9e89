package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// VerifyMemberArgs are the arguments of verify_member.
type VerifyMemberArgs struct {
	// The member's username, such as maple_rita.
	Username string `json:"username"`
	// The member's email address.
	Email string `json:"email"`
}

// VerifyMember verifies a member by username and email.
func VerifyMember(args VerifyMemberArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, username, display_name, neighbourhood FROM members WHERE lower(username) = lower(?) AND lower(email) = lower(?)`,
		strings.TrimSpace(args.Username), strings.TrimSpace(args.Email))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no member has the username %s with that email", args.Username)
	}
	return row, err
}

func memberExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM members WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no member has the id %s", id)
	}
	return err
}

func groupRow(id string) (sdk.Row, error) {
	g, err := sdk.QueryRow(`SELECT id, name, visibility FROM "groups" WHERE id = ?`, strings.TrimSpace(id))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no group has the id %s", id)
	}
	return g, err
}

func isMember(groupID, memberID string) (bool, error) {
	_, err := sdk.QueryRow(`SELECT id FROM memberships WHERE group_id = ? AND member_id = ?`, groupID, memberID)
	if err == sdk.ErrNoRows {
		return false, nil
	}
	return err == nil, err
}

// FindGroupArgs are the arguments of find_group.
type FindGroupArgs struct {
	// The group's name, such as Night Runners.
	Name string `json:"name"`
}

// FindGroup finds a group by its exact name, with its member count.
func FindGroup(args FindGroupArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT g.id, g.name, g.visibility, g.description, (SELECT count(*) FROM memberships m WHERE m.group_id = g.id) AS member_count
		FROM "groups" g WHERE lower(g.name) = lower(?)`, strings.TrimSpace(args.Name))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no group is called %s", args.Name)
	}
	return row, err
}

// ListMemberGroupsArgs are the arguments of list_member_groups.
type ListMemberGroupsArgs struct {
	// The member's id from verify_member.
	MemberID string `json:"member_id"`
}

// ListMemberGroups lists the member's groups and pending join requests.
func ListMemberGroups(args ListMemberGroupsArgs) (map[string]any, error) {
	if err := memberExists(args.MemberID); err != nil {
		return nil, err
	}
	groups, err := sdk.Query(`SELECT g.id AS group_id, g.name, m.role FROM memberships m JOIN "groups" g ON g.id = m.group_id WHERE m.member_id = ? ORDER BY g.name`, args.MemberID)
	if err != nil {
		return nil, err
	}
	pending, err := sdk.Query(`SELECT g.id AS group_id, g.name, r.requested_at FROM join_requests r JOIN "groups" g ON g.id = r.group_id WHERE r.member_id = ? AND r.status = 'pending' ORDER BY g.name`, args.MemberID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"groups": groups, "pending_requests": pending}, nil
}

// MembershipArgs name a member and a group.
type MembershipArgs struct {
	// The member's id from verify_member.
	MemberID string `json:"member_id"`
	// The group's id from find_group.
	GroupID string `json:"group_id"`
}

// JoinGroup adds the member to an open group.
func JoinGroup(args MembershipArgs) (sdk.Row, error) {
	if err := memberExists(args.MemberID); err != nil {
		return sdk.Row{}, err
	}
	g, err := groupRow(args.GroupID)
	if err != nil {
		return sdk.Row{}, err
	}
	if g.String("visibility") != "open" {
		return sdk.Row{}, fmt.Errorf("%s is a private group: send a request with request_to_join", g.String("name"))
	}
	if in, err := isMember(g.String("id"), args.MemberID); err != nil {
		return sdk.Row{}, err
	} else if in {
		return sdk.Row{}, fmt.Errorf("the member already belongs to %s", g.String("name"))
	}
	res, err := sdk.Exec(`INSERT INTO memberships (group_id, member_id, role, joined_at) VALUES (?, ?, 'member', ?)`, g.String("id"), args.MemberID, sdk.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, group_id, member_id, role, joined_at FROM memberships WHERE id = ?`, res.LastInsertID)
}

// RequestToJoin sends a pending request to join a private group.
func RequestToJoin(args MembershipArgs) (sdk.Row, error) {
	if err := memberExists(args.MemberID); err != nil {
		return sdk.Row{}, err
	}
	g, err := groupRow(args.GroupID)
	if err != nil {
		return sdk.Row{}, err
	}
	if g.String("visibility") != "private" {
		return sdk.Row{}, fmt.Errorf("%s is an open group: join it with join_group", g.String("name"))
	}
	if in, err := isMember(g.String("id"), args.MemberID); err != nil {
		return sdk.Row{}, err
	} else if in {
		return sdk.Row{}, fmt.Errorf("the member already belongs to %s", g.String("name"))
	}
	if _, err := sdk.QueryRow(`SELECT id FROM join_requests WHERE group_id = ? AND member_id = ? AND status = 'pending'`, g.String("id"), args.MemberID); err == nil {
		return sdk.Row{}, fmt.Errorf("a request to join %s is already pending", g.String("name"))
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	res, err := sdk.Exec(`INSERT INTO join_requests (group_id, member_id, status, requested_at) VALUES (?, ?, 'pending', ?)`, g.String("id"), args.MemberID, sdk.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, group_id, member_id, status, requested_at FROM join_requests WHERE id = ?`, res.LastInsertID)
}

// LeaveGroup removes the member from a group.
func LeaveGroup(args MembershipArgs) (map[string]any, error) {
	if err := memberExists(args.MemberID); err != nil {
		return nil, err
	}
	g, err := groupRow(args.GroupID)
	if err != nil {
		return nil, err
	}
	m, err := sdk.QueryRow(`SELECT id, role FROM memberships WHERE group_id = ? AND member_id = ?`, g.String("id"), args.MemberID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("the member does not belong to %s", g.String("name"))
	} else if err != nil {
		return nil, err
	}
	if m.String("role") == "admin" {
		admins, err := sdk.QueryRow(`SELECT count(*) AS n FROM memberships WHERE group_id = ? AND role = 'admin'`, g.String("id"))
		if err != nil {
			return nil, err
		}
		if admins.Int("n") < 2 {
			return nil, fmt.Errorf("the member is the only admin of %s and cannot leave it", g.String("name"))
		}
	}
	if _, err := sdk.Exec(`DELETE FROM memberships WHERE id = ?`, m.Int("id")); err != nil {
		return nil, err
	}
	return map[string]any{"left_group": g.String("id"), "name": g.String("name")}, nil
}
