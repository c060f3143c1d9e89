package tools

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

const contactColumns = `c.id AS contact_id, c.first_name, c.last_name, c.phone, c.email, c.company, c.notes,
	c.favorite = 1 AS favorite, c.account_id, a.username`

// SearchContacts searches the logged-in user's address book. The query matches
// first name, last name, full name, phone, email, company and notes
// (case-insensitive substring). An empty query lists every contact.
func SearchContacts(args SearchContactsArgs) (sdk.Rows, error) {
	sql := `SELECT ` + contactColumns + ` FROM contacts c LEFT JOIN accounts a ON a.id = c.account_id WHERE 1 = 1`
	var params []any
	if q := strings.TrimSpace(args.Query); q != "" {
		p := likePattern(q)
		sql += ` AND (c.first_name LIKE ? ESCAPE '\' OR c.last_name LIKE ? ESCAPE '\' OR (c.first_name || ' ' || c.last_name) LIKE ? ESCAPE '\'
			OR c.phone LIKE ? ESCAPE '\' OR c.email LIKE ? ESCAPE '\' OR c.company LIKE ? ESCAPE '\' OR c.notes LIKE ? ESCAPE '\')`
		params = append(params, p, p, p, p, p, p, p)
	}
	if g := strings.TrimSpace(args.Group); g != "" {
		if _, err := groupByName(g); err != nil {
			return sdk.Rows{}, err
		}
		sql += ` AND c.id IN (SELECT gm.contact_id FROM group_memberships gm JOIN contact_groups g ON g.id = gm.group_id WHERE g.name = ?)`
		params = append(params, g)
	}
	if args.FavoritesOnly {
		sql += ` AND c.favorite = 1`
	}
	sql += ` ORDER BY c.first_name, c.last_name, c.id`
	return sdk.Query(sql, params...)
}

type SearchContactsArgs struct {
	// Text to look for in names, phone, email, company or notes; empty lists all contacts.
	Query string `json:"query,omitempty"`
	// Only contacts in this contact group (by name, such as "Family").
	Group string `json:"group,omitempty"`
	// Only contacts marked as favorites.
	FavoritesOnly bool `json:"favorites_only,omitempty"`
}

// GetContact returns one contact with the contact groups it belongs to.
func GetContact(args GetContactArgs) (map[string]any, error) {
	row, err := sdk.QueryRow(`SELECT `+contactColumns+`, c.created_at, c.updated_at
		FROM contacts c LEFT JOIN accounts a ON a.id = c.account_id WHERE c.id = ?`, args.ContactID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("contact %d not found", args.ContactID)
	}
	if err != nil {
		return nil, err
	}
	groups, err := sdk.Query(`SELECT g.id AS group_id, g.name FROM group_memberships gm JOIN contact_groups g ON g.id = gm.group_id
		WHERE gm.contact_id = ? ORDER BY g.name`, args.ContactID)
	if err != nil {
		return nil, err
	}
	out := row.Map()
	out["groups"] = groups
	return out, nil
}

type GetContactArgs struct {
	// The contact id.
	ContactID int `json:"contact_id"`
}

// AddContact adds a person to the address book. At least a phone number or an
// email is required. Phone numbers must be in international format with the
// country code (+14155550123); spaces and dashes are removed. If the phone or
// email belongs to an account on the service, the contact is linked to it.
func AddContact(args AddContactArgs) (map[string]any, error) {
	first := strings.TrimSpace(args.FirstName)
	if first == "" {
		return nil, fmt.Errorf("first_name is required")
	}
	phone, email, err := contactChannels(args.Phone, args.Email)
	if err != nil {
		return nil, err
	}
	if phone == nil && email == nil {
		return nil, fmt.Errorf("a contact needs a phone number or an email address")
	}
	if err := checkDuplicateContact(0, phone, email); err != nil {
		return nil, err
	}
	var accountID any
	acc, err := sdk.QueryRow(`SELECT id FROM accounts WHERE (phone IS NOT NULL AND phone = ?) OR (email IS NOT NULL AND email = ?)
		ORDER BY id LIMIT 1`, phone, email)
	if err == nil {
		accountID = acc.Int("id")
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	ts := now()
	res, err := sdk.Exec(`INSERT INTO contacts (account_id, first_name, last_name, phone, email, company, notes, favorite, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, accountID, first, strings.TrimSpace(args.LastName), phone, email,
		strings.TrimSpace(args.Company), strings.TrimSpace(args.Notes), args.Favorite, ts, ts)
	if err != nil {
		return nil, err
	}
	return GetContact(GetContactArgs{ContactID: int(res.LastInsertID)})
}

type AddContactArgs struct {
	// First name (required).
	FirstName string `json:"first_name"`
	// Last name.
	LastName string `json:"last_name,omitempty"`
	// Phone number in international format, such as +14155550123.
	Phone string `json:"phone,omitempty"`
	// Email address.
	Email string `json:"email,omitempty"`
	// Company or organization.
	Company string `json:"company,omitempty"`
	// Free-form notes.
	Notes string `json:"notes,omitempty"`
	// Mark the contact as a favorite.
	Favorite bool `json:"favorite,omitempty"`
}

// UpdateContact changes fields of a contact; fields left out are unchanged.
// An empty string clears phone, email, company or notes (a contact must keep
// a phone number or an email).
func UpdateContact(args UpdateContactArgs) (map[string]any, error) {
	cur, err := sdk.QueryRow(`SELECT id, phone, email FROM contacts WHERE id = ?`, args.ContactID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("contact %d not found", args.ContactID)
	}
	if err != nil {
		return nil, err
	}
	var sets []string
	var params []any
	if args.FirstName != nil {
		if strings.TrimSpace(*args.FirstName) == "" {
			return nil, fmt.Errorf("first_name must not be empty")
		}
		sets, params = append(sets, "first_name = ?"), append(params, strings.TrimSpace(*args.FirstName))
	}
	if args.LastName != nil {
		sets, params = append(sets, "last_name = ?"), append(params, strings.TrimSpace(*args.LastName))
	}
	phone, email := cur.Value("phone"), cur.Value("email")
	if args.Phone != nil {
		p, _, err := contactChannels(*args.Phone, "")
		if err != nil {
			return nil, err
		}
		phone = p
		sets, params = append(sets, "phone = ?"), append(params, p)
	}
	if args.Email != nil {
		_, e, err := contactChannels("", *args.Email)
		if err != nil {
			return nil, err
		}
		email = e
		sets, params = append(sets, "email = ?"), append(params, e)
	}
	if phone == nil && email == nil {
		return nil, fmt.Errorf("a contact needs a phone number or an email address")
	}
	if args.Phone != nil || args.Email != nil {
		if err := checkDuplicateContact(args.ContactID, phone, email); err != nil {
			return nil, err
		}
	}
	if args.Company != nil {
		sets, params = append(sets, "company = ?"), append(params, strings.TrimSpace(*args.Company))
	}
	if args.Notes != nil {
		sets, params = append(sets, "notes = ?"), append(params, strings.TrimSpace(*args.Notes))
	}
	if args.Favorite != nil {
		sets, params = append(sets, "favorite = ?"), append(params, *args.Favorite)
	}
	if len(sets) == 0 {
		return nil, fmt.Errorf("nothing to update: give at least one field")
	}
	sets, params = append(sets, "updated_at = ?"), append(params, now(), args.ContactID)
	if _, err := sdk.Exec(`UPDATE contacts SET `+strings.Join(sets, ", ")+` WHERE id = ?`, params...); err != nil {
		return nil, err
	}
	return GetContact(GetContactArgs{ContactID: args.ContactID})
}

type UpdateContactArgs struct {
	// The contact id.
	ContactID int `json:"contact_id"`
	// New first name.
	FirstName *string `json:"first_name,omitempty"`
	// New last name.
	LastName *string `json:"last_name,omitempty"`
	// New phone number in international format (+14155550123); "" clears it.
	Phone *string `json:"phone,omitempty"`
	// New email address; "" clears it.
	Email *string `json:"email,omitempty"`
	// New company; "" clears it.
	Company *string `json:"company,omitempty"`
	// New notes (replaces the old notes); "" clears them.
	Notes *string `json:"notes,omitempty"`
	// Mark or unmark the contact as a favorite.
	Favorite *bool `json:"favorite,omitempty"`
}

// DeleteContact removes a contact from the address book and from every
// contact group. Conversations and messages with the person are kept.
func DeleteContact(args DeleteContactArgs) (map[string]any, error) {
	row, err := sdk.QueryRow(`SELECT id, first_name, last_name FROM contacts WHERE id = ?`, args.ContactID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("contact %d not found", args.ContactID)
	}
	if err != nil {
		return nil, err
	}
	res, err := sdk.Exec(`DELETE FROM group_memberships WHERE contact_id = ?`, args.ContactID)
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`DELETE FROM contacts WHERE id = ?`, args.ContactID); err != nil {
		return nil, err
	}
	return map[string]any{
		"deleted_contact_id":      args.ContactID,
		"name":                    strings.TrimSpace(row.String("first_name") + " " + row.String("last_name")),
		"removed_from_groups":     res.RowsAffected,
		"conversations_unchanged": true,
	}, nil
}

type DeleteContactArgs struct {
	// The contact id.
	ContactID int `json:"contact_id"`
}

// contactChannels normalizes an optional phone and email; "" gives nil.
func contactChannels(phone, email string) (any, any, error) {
	var p, e any
	if strings.TrimSpace(phone) != "" {
		n, err := normalizePhone(phone)
		if err != nil {
			return nil, nil, err
		}
		p = n
	}
	if strings.TrimSpace(email) != "" {
		n, err := normalizeEmail(email)
		if err != nil {
			return nil, nil, err
		}
		e = n
	}
	return p, e, nil
}

// checkDuplicateContact refuses a phone or email already used by another contact.
func checkDuplicateContact(exceptID int, phone, email any) error {
	row, err := sdk.QueryRow(`SELECT id, first_name, last_name FROM contacts WHERE id <> ?
		AND ((phone IS NOT NULL AND phone = ?) OR (email IS NOT NULL AND email = ?)) ORDER BY id LIMIT 1`, exceptID, phone, email)
	if err == sdk.ErrNoRows {
		return nil
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("contact %d (%s %s) already has this phone number or email", row.Int("id"), row.String("first_name"), row.String("last_name"))
}
