package tools

import (
	"fmt"
	"math"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// ListProfiles lists the subscriber's profiles.
func ListProfiles(args SubscriberArgs) (sdk.Rows, error) {
	s, err := subscriber(args.SubscriberID)
	if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT name, kids = 1 AS kids FROM profiles WHERE subscriber_id = ? ORDER BY id`, s.String("id"))
}

// AddProfileArgs are the arguments of add_profile.
type AddProfileArgs struct {
	// The subscriber's id.
	SubscriberID string `json:"subscriber_id"`
	// The new profile's name.
	Name string `json:"name"`
	// A kids profile.
	Kids bool `json:"kids,omitempty"`
}

// AddProfile adds a profile within the plan's profile limit.
func AddProfile(args AddProfileArgs) (sdk.Row, error) {
	s, err := subscriber(args.SubscriberID)
	if err != nil {
		return sdk.Row{}, err
	}
	if s.String("status") == "cancelled" {
		return sdk.Row{}, fmt.Errorf("the subscription is cancelled")
	}
	name := strings.TrimSpace(args.Name)
	if name == "" {
		return sdk.Row{}, fmt.Errorf("a profile needs a name")
	}
	limit, err := sdk.QueryRow(`SELECT p.max_profiles, (SELECT count(*) FROM profiles WHERE subscriber_id = ?) AS n FROM plans p WHERE p.code = ?`, s.String("id"), s.String("plan_code"))
	if err != nil {
		return sdk.Row{}, err
	}
	if limit.Int("n") >= limit.Int("max_profiles") {
		return sdk.Row{}, fmt.Errorf("the plan allows %d profiles and the account has %d", limit.Int("max_profiles"), limit.Int("n"))
	}
	if _, err := sdk.QueryRow(`SELECT id FROM profiles WHERE subscriber_id = ? AND lower(name) = lower(?)`, s.String("id"), name); err == nil {
		return sdk.Row{}, fmt.Errorf("a profile called %s already exists", name)
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	kids := 0
	if args.Kids {
		kids = 1
	}
	res, err := sdk.Exec(`INSERT INTO profiles (subscriber_id, name, kids) VALUES (?, ?, ?)`, s.String("id"), name, kids)
	if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, name, kids = 1 AS kids FROM profiles WHERE id = ?`, res.LastInsertID)
}

func profileID(subscriberID, name string) (int64, error) {
	p, err := sdk.QueryRow(`SELECT id FROM profiles WHERE subscriber_id = ? AND lower(name) = lower(?)`, subscriberID, strings.TrimSpace(name))
	if err == sdk.ErrNoRows {
		return 0, fmt.Errorf("the account has no profile called %s", name)
	}
	if err != nil {
		return 0, err
	}
	return p.Int("id"), nil
}

// RenameProfileArgs are the arguments of rename_profile.
type RenameProfileArgs struct {
	// The subscriber's id.
	SubscriberID string `json:"subscriber_id"`
	// The profile's current name.
	ProfileName string `json:"profile_name"`
	// The new name.
	NewName string `json:"new_name"`
}

// RenameProfile renames one of the subscriber's profiles.
func RenameProfile(args RenameProfileArgs) (sdk.Row, error) {
	s, err := subscriber(args.SubscriberID)
	if err != nil {
		return sdk.Row{}, err
	}
	id, err := profileID(s.String("id"), args.ProfileName)
	if err != nil {
		return sdk.Row{}, err
	}
	name := strings.TrimSpace(args.NewName)
	if name == "" {
		return sdk.Row{}, fmt.Errorf("a profile needs a name")
	}
	if _, err := sdk.QueryRow(`SELECT id FROM profiles WHERE subscriber_id = ? AND lower(name) = lower(?) AND id <> ?`, s.String("id"), name, id); err == nil {
		return sdk.Row{}, fmt.Errorf("a profile called %s already exists", name)
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`UPDATE profiles SET name = ? WHERE id = ?`, name, id); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, name, kids = 1 AS kids FROM profiles WHERE id = ?`, id)
}

// DeleteProfileArgs are the arguments of delete_profile.
type DeleteProfileArgs struct {
	// The subscriber's id.
	SubscriberID string `json:"subscriber_id"`
	// The profile's name.
	ProfileName string `json:"profile_name"`
}

// DeleteProfile deletes a profile, never the account's last.
func DeleteProfile(args DeleteProfileArgs) (map[string]any, error) {
	s, err := subscriber(args.SubscriberID)
	if err != nil {
		return nil, err
	}
	id, err := profileID(s.String("id"), args.ProfileName)
	if err != nil {
		return nil, err
	}
	n, err := sdk.QueryRow(`SELECT count(*) AS n FROM profiles WHERE subscriber_id = ?`, s.String("id"))
	if err != nil {
		return nil, err
	}
	if n.Int("n") < 2 {
		return nil, fmt.Errorf("%s is the account's last profile", args.ProfileName)
	}
	if _, err := sdk.Exec(`DELETE FROM profiles WHERE id = ?`, id); err != nil {
		return nil, err
	}
	return map[string]any{"deleted": strings.TrimSpace(args.ProfileName), "profiles_left": n.Int("n") - 1}, nil
}
