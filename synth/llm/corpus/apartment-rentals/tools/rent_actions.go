package tools

import (
	"fmt"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

func nowText() string { return sdk.Now().Format(time.RFC3339) }

// BookViewingArgs are the arguments of book_viewing.
type BookViewingArgs struct {
	// The tenant's id from find_tenant.
	TenantID string `json:"tenant_id"`
	// The slot's id from list_viewing_slots.
	SlotID string `json:"slot_id"`
}

// BookViewing books a free future viewing slot for the tenant.
func BookViewing(args BookViewingArgs) (sdk.Row, error) {
	if err := tenantExists(args.TenantID); err != nil {
		return sdk.Row{}, err
	}
	s, err := sdk.QueryRow(`SELECT s.id, s.apartment_id, s.starts_at, s.tenant_id IS NOT NULL AS taken, a.listed FROM viewing_slots s
		JOIN apartments a ON a.id = s.apartment_id WHERE s.id = ?`, args.SlotID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no viewing slot %s", args.SlotID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	switch {
	case s.Int("listed") != 1:
		return sdk.Row{}, fmt.Errorf("the apartment is no longer listed")
	case s.Int("taken") == 1:
		return sdk.Row{}, fmt.Errorf("slot %s is already booked", args.SlotID)
	case s.String("starts_at") <= nowText():
		return sdk.Row{}, fmt.Errorf("slot %s has passed", args.SlotID)
	}
	if _, err := sdk.QueryRow(`SELECT id FROM viewing_slots WHERE apartment_id = ? AND tenant_id = ?`, s.String("apartment_id"), args.TenantID); err == nil {
		return sdk.Row{}, fmt.Errorf("the tenant already has a viewing of this apartment")
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`UPDATE viewing_slots SET tenant_id = ? WHERE id = ?`, args.TenantID, args.SlotID); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT s.id AS slot_id, a.address, s.starts_at, g.name AS agent FROM viewing_slots s JOIN apartments a ON a.id = s.apartment_id
		JOIN agents g ON g.id = a.agent_id WHERE s.id = ?`, args.SlotID)
}

// CancelViewingArgs are the arguments of cancel_viewing.
type CancelViewingArgs struct {
	// The tenant's id from find_tenant.
	TenantID string `json:"tenant_id"`
	// The viewing's slot id.
	SlotID string `json:"slot_id"`
}

// CancelViewing cancels the tenant's future viewing.
func CancelViewing(args CancelViewingArgs) (sdk.Row, error) {
	s, err := sdk.QueryRow(`SELECT id, starts_at FROM viewing_slots WHERE id = ? AND tenant_id = ?`, args.SlotID, args.TenantID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the tenant has no viewing in slot %s", args.SlotID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if s.String("starts_at") <= nowText() {
		return sdk.Row{}, fmt.Errorf("the viewing has already taken place")
	}
	if _, err := sdk.Exec(`UPDATE viewing_slots SET tenant_id = NULL WHERE id = ?`, args.SlotID); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT s.id AS slot_id, a.address, s.starts_at FROM viewing_slots s JOIN apartments a ON a.id = s.apartment_id WHERE s.id = ?`, args.SlotID)
}

// ApplyForApartmentArgs are the arguments of apply_for_apartment.
type ApplyForApartmentArgs struct {
	// The tenant's id from find_tenant.
	TenantID string `json:"tenant_id"`
	// The apartment's id.
	ApartmentID string `json:"apartment_id"`
}

// ApplyForApartment applies for a listed apartment once.
func ApplyForApartment(args ApplyForApartmentArgs) (sdk.Row, error) {
	if err := tenantExists(args.TenantID); err != nil {
		return sdk.Row{}, err
	}
	a, err := sdk.QueryRow(`SELECT id, listed FROM apartments WHERE id = ?`, args.ApartmentID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no apartment has the id %s", args.ApartmentID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if a.Int("listed") != 1 {
		return sdk.Row{}, fmt.Errorf("the apartment is no longer listed")
	}
	if _, err := sdk.QueryRow(`SELECT id FROM applications WHERE tenant_id = ? AND apartment_id = ?`, args.TenantID, args.ApartmentID); err == nil {
		return sdk.Row{}, fmt.Errorf("the tenant has already applied for this apartment")
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	res, err := sdk.Exec(`INSERT INTO applications (tenant_id, apartment_id, status, applied_at) VALUES (?, ?, 'pending', ?)`, args.TenantID, args.ApartmentID, nowText())
	if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT p.id AS application_id, a.address, a.rent, p.status, p.applied_at FROM applications p JOIN apartments a ON a.id = p.apartment_id WHERE p.id = ?`, res.LastInsertID)
}
