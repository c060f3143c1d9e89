package tools

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// ListContactGroups lists the address book's contact groups with their members.
func ListContactGroups() ([]any, error) {
	groups, err := sdk.Query(`SELECT id AS group_id, name, description FROM contact_groups ORDER BY name`)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, groups.Len())
	for _, g := range groups.All() {
		members, err := sdk.Query(`SELECT c.id AS contact_id, TRIM(c.first_name || ' ' || c.last_name) AS name
			FROM group_memberships gm JOIN contacts c ON c.id = gm.contact_id WHERE gm.group_id = ? ORDER BY c.first_name, c.last_name, c.id`,
			g.Int("group_id"))
		if err != nil {
			return nil, err
		}
		m := g.Map()
		m["members"] = members
		m["member_count"] = members.Len()
		out = append(out, m)
	}
	return out, nil
}

// CreateContactGroup creates an empty contact group in the address book.
// Group names are unique (case-insensitive).
func CreateContactGroup(args CreateContactGroupArgs) (map[string]any, error) {
	name := strings.TrimSpace(args.Name)
	if name == "" {
		return nil, fmt.Errorf("group name must not be empty")
	}
	if len(name) > 60 {
		return nil, fmt.Errorf("group name is too long (at most 60 characters)")
	}
	if g, err := groupByName(name); err == nil {
		return nil, fmt.Errorf("a contact group named %q already exists (group %d)", g.String("name"), g.Int("id"))
	}
	res, err := sdk.Exec(`INSERT INTO contact_groups (name, description, created_at) VALUES (?, ?, ?)`,
		name, strings.TrimSpace(args.Description), now())
	if err != nil {
		return nil, err
	}
	return map[string]any{"group_id": res.LastInsertID, "name": name, "description": strings.TrimSpace(args.Description)}, nil
}

type CreateContactGroupArgs struct {
	// Name of the new group, such as "Climbing".
	Name string `json:"name"`
	// Optional description.
	Description string `json:"description,omitempty"`
}

// AddContactToGroup adds a contact to a contact group.
func AddContactToGroup(args GroupMemberArgs) (map[string]any, error) {
	g, c, err := groupAndContact(args)
	if err != nil {
		return nil, err
	}
	if _, err := sdk.QueryRow(`SELECT 1 FROM group_memberships WHERE group_id = ? AND contact_id = ?`, args.GroupID, args.ContactID); err == nil {
		return nil, fmt.Errorf("%s is already in group %q", c, g)
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO group_memberships (group_id, contact_id, added_at) VALUES (?, ?, ?)`,
		args.GroupID, args.ContactID, now()); err != nil {
		return nil, err
	}
	return map[string]any{"group": g, "contact": c, "status": "added"}, nil
}

// RemoveContactFromGroup removes a contact from a contact group (the contact
// itself is kept).
func RemoveContactFromGroup(args GroupMemberArgs) (map[string]any, error) {
	g, c, err := groupAndContact(args)
	if err != nil {
		return nil, err
	}
	res, err := sdk.Exec(`DELETE FROM group_memberships WHERE group_id = ? AND contact_id = ?`, args.GroupID, args.ContactID)
	if err != nil {
		return nil, err
	}
	if res.RowsAffected == 0 {
		return nil, fmt.Errorf("%s is not in group %q", c, g)
	}
	return map[string]any{"group": g, "contact": c, "status": "removed"}, nil
}

type GroupMemberArgs struct {
	// The contact group id (see list_contact_groups).
	GroupID int `json:"group_id"`
	// The contact id (see search_contacts).
	ContactID int `json:"contact_id"`
}

// groupByName finds a contact group by name (case-insensitive).
func groupByName(name string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, name FROM contact_groups WHERE name = ?`, strings.TrimSpace(name))
	if err == sdk.ErrNoRows {
		return row, fmt.Errorf("no contact group named %q", name)
	}
	return row, err
}

// groupAndContact checks both ids and returns the group's and contact's names.
func groupAndContact(args GroupMemberArgs) (string, string, error) {
	g, err := sdk.QueryRow(`SELECT name FROM contact_groups WHERE id = ?`, args.GroupID)
	if err == sdk.ErrNoRows {
		return "", "", fmt.Errorf("contact group %d not found", args.GroupID)
	}
	if err != nil {
		return "", "", err
	}
	c, err := sdk.QueryRow(`SELECT TRIM(first_name || ' ' || last_name) AS name FROM contacts WHERE id = ?`, args.ContactID)
	if err == sdk.ErrNoRows {
		return "", "", fmt.Errorf("contact %d not found", args.ContactID)
	}
	if err != nil {
		return "", "", err
	}
	return g.String("name"), c.String("name"), nil
}
