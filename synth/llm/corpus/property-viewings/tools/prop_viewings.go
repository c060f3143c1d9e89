package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// VerifyBuyerArgs are the arguments of verify_buyer.
type VerifyBuyerArgs struct {
	// The buyer's email address.
	Email string `json:"email"`
	// The buyer's date of birth, YYYY-MM-DD.
	DateOfBirth string `json:"date_of_birth"`
}

// VerifyBuyer verifies a buyer by email and date of birth.
func VerifyBuyer(args VerifyBuyerArgs) (sdk.Row, error) {
	b, err := sdk.QueryRow(`SELECT id, name, email, date_of_birth FROM buyers WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if err == sdk.ErrNoRows || (err == nil && b.String("date_of_birth") != strings.TrimSpace(args.DateOfBirth)) {
		return sdk.Row{}, fmt.Errorf("the email and date of birth do not match a buyer")
	} else if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, name, email FROM buyers WHERE id = ?`, b.String("id"))
}

func buyerExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM buyers WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no buyer has the id %s", id)
	}
	return err
}

// FindPropertyArgs are the arguments of find_property.
type FindPropertyArgs struct {
	// The property's address, such as 12 Elm Street.
	Address string `json:"address"`
}

// FindProperty finds a property by its address.
func FindProperty(args FindPropertyArgs) (sdk.Row, error) {
	p, err := sdk.QueryRow(`SELECT id, address, asking_price, bedrooms, status FROM properties WHERE lower(address) = lower(?)`, strings.TrimSpace(args.Address))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no property has the address %s", args.Address)
	}
	return p, err
}

func property(id string) (sdk.Row, error) {
	p, err := sdk.QueryRow(`SELECT id, address, asking_price, status FROM properties WHERE id = ?`, strings.TrimSpace(id))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no property has the id %s", id)
	}
	return p, err
}

// ListViewingSlotsArgs are the arguments of list_viewing_slots.
type ListViewingSlotsArgs struct {
	// The property's id from find_property.
	PropertyID string `json:"property_id"`
}

// ListViewingSlots lists a property's slots that have not started.
func ListViewingSlots(args ListViewingSlotsArgs) (sdk.Rows, error) {
	p, err := property(args.PropertyID)
	if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT id, starts_at, agent, buyer_id IS NULL AS free FROM viewing_slots WHERE property_id = ? AND starts_at > ? ORDER BY starts_at`,
		p.String("id"), sdk.Now().UTC().Format(time.RFC3339))
}

// BuyerArgs name a buyer.
type BuyerArgs struct {
	// The buyer's id from verify_buyer.
	BuyerID string `json:"buyer_id"`
}

// ListMyViewings lists the buyer's upcoming and past viewings.
func ListMyViewings(args BuyerArgs) (map[string]any, error) {
	if err := buyerExists(args.BuyerID); err != nil {
		return nil, err
	}
	upcoming, err := sdk.Query(`SELECT s.id AS slot_id, p.address, s.starts_at FROM viewing_slots s JOIN properties p ON p.id = s.property_id
		WHERE s.buyer_id = ? AND s.starts_at > ? ORDER BY s.starts_at`, args.BuyerID, sdk.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return nil, err
	}
	past, err := sdk.Query(`SELECT p.address, v.viewed_on FROM past_viewings v JOIN properties p ON p.id = v.property_id WHERE v.buyer_id = ? ORDER BY v.viewed_on`, args.BuyerID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"upcoming": upcoming, "past": past}, nil
}

// SlotArgs name a buyer and a slot.
type SlotArgs struct {
	// The buyer's id.
	BuyerID string `json:"buyer_id"`
	// The slot's id from list_viewing_slots.
	SlotID string `json:"slot_id"`
}

func slotRow(id string) (sdk.Row, error) {
	s, err := sdk.QueryRow(`SELECT s.id, s.property_id, s.starts_at, s.agent, COALESCE(s.buyer_id, '') AS buyer_id, p.status, p.address
		FROM viewing_slots s JOIN properties p ON p.id = s.property_id WHERE upper(s.id) = upper(?)`, strings.TrimSpace(id))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no viewing slot has the id %s", id)
	}
	return s, err
}

// BookViewing books a free slot of a listed property for the buyer.
func BookViewing(args SlotArgs) (sdk.Row, error) {
	if err := buyerExists(args.BuyerID); err != nil {
		return sdk.Row{}, err
	}
	s, err := slotRow(args.SlotID)
	if err != nil {
		return sdk.Row{}, err
	}
	now := sdk.Now().UTC().Format(time.RFC3339)
	switch {
	case s.String("buyer_id") != "":
		return sdk.Row{}, fmt.Errorf("slot %s is already taken", s.String("id"))
	case s.String("starts_at") <= now:
		return sdk.Row{}, fmt.Errorf("slot %s has already started", s.String("id"))
	case s.String("status") != "listed":
		return sdk.Row{}, fmt.Errorf("%s is %s and takes no viewings", s.String("address"), s.String("status"))
	}
	if _, err := sdk.QueryRow(`SELECT id FROM viewing_slots WHERE property_id = ? AND buyer_id = ? AND starts_at > ?`, s.String("property_id"), args.BuyerID, now); err == nil {
		return sdk.Row{}, fmt.Errorf("the buyer already holds an upcoming viewing of %s: cancel it first", s.String("address"))
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`UPDATE viewing_slots SET buyer_id = ?, booked_at = ? WHERE id = ?`, args.BuyerID, now, s.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, property_id, starts_at, agent, buyer_id FROM viewing_slots WHERE id = ?`, s.String("id"))
}

// CancelViewing frees the buyer's upcoming viewing slot.
func CancelViewing(args SlotArgs) (sdk.Row, error) {
	if err := buyerExists(args.BuyerID); err != nil {
		return sdk.Row{}, err
	}
	s, err := slotRow(args.SlotID)
	if err != nil {
		return sdk.Row{}, err
	}
	if s.String("buyer_id") != args.BuyerID {
		return sdk.Row{}, fmt.Errorf("the buyer does not hold slot %s", s.String("id"))
	}
	if s.String("starts_at") <= sdk.Now().UTC().Format(time.RFC3339) {
		return sdk.Row{}, fmt.Errorf("slot %s has already started", s.String("id"))
	}
	if _, err := sdk.Exec(`UPDATE viewing_slots SET buyer_id = NULL, booked_at = NULL WHERE id = ?`, s.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, property_id, starts_at, agent, buyer_id IS NULL AS free FROM viewing_slots WHERE id = ?`, s.String("id"))
}
