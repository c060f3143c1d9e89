package tools

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// FindTenantArgs are the arguments of find_tenant.
type FindTenantArgs struct {
	// The tenant's email address.
	Email string `json:"email"`
}

// FindTenant finds a tenant by email.
func FindTenant(args FindTenantArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, name, email FROM tenants WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no tenant has the email %s", args.Email)
	}
	return row, err
}

func tenantExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM tenants WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no tenant has the id %s", id)
	}
	return err
}

// SearchApartmentsArgs are the arguments of search_apartments.
type SearchApartmentsArgs struct {
	// The city, such as Leeds.
	City string `json:"city"`
	// Exactly this many bedrooms.
	Bedrooms *int `json:"bedrooms,omitempty"`
	// At most this monthly rent.
	MaxRent *float64 `json:"max_rent,omitempty"`
}

// SearchApartments lists listed apartments in a city, cheapest first.
func SearchApartments(args SearchApartmentsArgs) (sdk.Rows, error) {
	beds, maxRent := -1, -1.0
	if args.Bedrooms != nil {
		beds = *args.Bedrooms
	}
	if args.MaxRent != nil {
		maxRent = *args.MaxRent
	}
	return sdk.Query(`SELECT a.id AS apartment_id, a.address, a.bedrooms, a.rent, g.name AS agent
		FROM apartments a JOIN agents g ON g.id = a.agent_id
		WHERE a.listed = 1 AND lower(a.city) = lower(?) AND (? < 0 OR a.bedrooms = ?) AND (? < 0 OR a.rent <= ?)
		ORDER BY a.rent, a.address`, strings.TrimSpace(args.City), beds, beds, maxRent, maxRent)
}

// GetApartmentArgs are the arguments of get_apartment.
type GetApartmentArgs struct {
	// The street address, such as 12 Canal Street.
	Address string `json:"address"`
}

// GetApartment returns an apartment by its address.
func GetApartment(args GetApartmentArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT a.id AS apartment_id, a.address, a.city, a.bedrooms, a.rent, g.name AS agent, a.listed = 1 AS listed
		FROM apartments a JOIN agents g ON g.id = a.agent_id WHERE lower(a.address) = lower(?)`, strings.TrimSpace(args.Address))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no apartment at %s", args.Address)
	}
	return row, err
}

// ListViewingSlotsArgs are the arguments of list_viewing_slots.
type ListViewingSlotsArgs struct {
	// The apartment's id.
	ApartmentID string `json:"apartment_id"`
}

// ListViewingSlots lists a listed apartment's free future slots.
func ListViewingSlots(args ListViewingSlotsArgs) (sdk.Rows, error) {
	if _, err := sdk.QueryRow(`SELECT id FROM apartments WHERE id = ?`, args.ApartmentID); err == sdk.ErrNoRows {
		return sdk.Rows{}, fmt.Errorf("no apartment has the id %s", args.ApartmentID)
	} else if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT s.id AS slot_id, s.starts_at FROM viewing_slots s JOIN apartments a ON a.id = s.apartment_id
		WHERE s.apartment_id = ? AND a.listed = 1 AND s.tenant_id IS NULL AND s.starts_at > ? ORDER BY s.starts_at`, args.ApartmentID, nowText())
}

// ListMyViewingsArgs are the arguments of list_my_viewings.
type ListMyViewingsArgs struct {
	// The tenant's id from find_tenant.
	TenantID string `json:"tenant_id"`
}

// ListMyViewings lists the tenant's booked viewings.
func ListMyViewings(args ListMyViewingsArgs) (sdk.Rows, error) {
	if err := tenantExists(args.TenantID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT s.id AS slot_id, a.address, s.starts_at FROM viewing_slots s JOIN apartments a ON a.id = s.apartment_id
		WHERE s.tenant_id = ? ORDER BY s.starts_at`, args.TenantID)
}
