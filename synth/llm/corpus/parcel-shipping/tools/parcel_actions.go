package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// lossWait is how long a parcel must be in transit before it counts as lost.
const lossWait = 7 * 24 * time.Hour

// CreateShipmentArgs are the arguments of create_shipment.
type CreateShipmentArgs struct {
	// The sender's id from find_sender.
	SenderID string `json:"sender_id"`
	// standard or express.
	Service string `json:"service"`
	// The parcel's weight in kg.
	WeightKg float64 `json:"weight_kg"`
	// The contents' declared value.
	DeclaredValue float64 `json:"declared_value"`
	// Who receives it.
	RecipientName string `json:"recipient_name"`
	// Where it goes, one line.
	RecipientAddress string `json:"recipient_address"`
}

// CreateShipment creates a shipment with a new tracking number and price.
func CreateShipment(args CreateShipmentArgs) (sdk.Row, error) {
	if err := senderExists(args.SenderID); err != nil {
		return sdk.Row{}, err
	}
	p, err := price(args.Service, args.WeightKg)
	if err != nil {
		return sdk.Row{}, err
	}
	if args.DeclaredValue < 0 {
		return sdk.Row{}, errors.New("the declared value cannot be negative")
	}
	name, addr := strings.TrimSpace(args.RecipientName), strings.TrimSpace(args.RecipientAddress)
	if name == "" || addr == "" {
		return sdk.Row{}, errors.New("give the recipient's name and address")
	}
	next, err := sdk.QueryRow(`SELECT coalesce(max(id), 0) + 1 AS n FROM shipments`)
	if err != nil {
		return sdk.Row{}, err
	}
	tracking := fmt.Sprintf("PK-%d", 20500+next.Int("n"))
	res, err := sdk.Exec(`INSERT INTO shipments (tracking, sender_id, service, weight_kg, declared_value, price, recipient_name, recipient_address, status, created_at)
		VALUES (?, ?, lower(?), ?, ?, ?, ?, ?, 'created', ?)`, tracking, args.SenderID, strings.TrimSpace(args.Service), args.WeightKg,
		args.DeclaredValue, p, name, addr, sdk.Now().Format(time.RFC3339))
	if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT tracking, service, weight_kg, declared_value, price, recipient_name, recipient_address, status, created_at FROM shipments WHERE id = ?`, res.LastInsertID)
}

// RedirectParcelArgs are the arguments of redirect_parcel.
type RedirectParcelArgs struct {
	// The sender's id from find_sender.
	SenderID string `json:"sender_id"`
	// The tracking number.
	Tracking string `json:"tracking"`
	// The new address, one line.
	NewAddress string `json:"new_address"`
}

// RedirectParcel changes the address of a parcel not yet delivered.
func RedirectParcel(args RedirectParcelArgs) (sdk.Row, error) {
	s, err := ownShipment(args.SenderID, args.Tracking)
	if err != nil {
		return sdk.Row{}, err
	}
	if st := s.String("status"); st == "delivered" || st == "returned" {
		return sdk.Row{}, fmt.Errorf("parcel %s is %s and can no longer be redirected", s.String("tracking"), st)
	}
	addr := strings.TrimSpace(args.NewAddress)
	if addr == "" {
		return sdk.Row{}, errors.New("give the new address")
	}
	if _, err := sdk.Exec(`UPDATE shipments SET recipient_address = ? WHERE id = ?`, addr, s.Int("id")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`INSERT INTO scans (shipment_id, location, event, scanned_at) VALUES (?, ?, 'redirected', ?)`,
		s.Int("id"), addr, sdk.Now().Format(time.RFC3339)); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT tracking, status, recipient_name, recipient_address FROM shipments WHERE id = ?`, s.Int("id"))
}

// FileClaimArgs are the arguments of file_claim.
type FileClaimArgs struct {
	// The sender's id from find_sender.
	SenderID string `json:"sender_id"`
	// The tracking number.
	Tracking string `json:"tracking"`
	// damaged or lost.
	Kind string `json:"kind"`
	// The amount claimed.
	Amount float64 `json:"amount"`
}

// FileClaim files a damage claim for a delivered parcel or a loss claim
// for one in transit more than 7 days, up to the declared value.
func FileClaim(args FileClaimArgs) (sdk.Row, error) {
	s, err := ownShipment(args.SenderID, args.Tracking)
	if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.QueryRow(`SELECT id FROM claims WHERE shipment_id = ?`, s.Int("id")); err == nil {
		return sdk.Row{}, fmt.Errorf("parcel %s already has a claim", s.String("tracking"))
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	kind := strings.ToLower(strings.TrimSpace(args.Kind))
	switch kind {
	case "damaged":
		if s.String("status") != "delivered" {
			return sdk.Row{}, fmt.Errorf("a damage claim needs a delivered parcel; %s is %s", s.String("tracking"), s.String("status"))
		}
	case "lost":
		created, err := time.Parse(time.RFC3339, s.String("created_at"))
		if err != nil {
			return sdk.Row{}, fmt.Errorf("parcel %s has an unreadable creation time", s.String("tracking"))
		}
		if s.String("status") != "in_transit" || sdk.Now().Sub(created) <= lossWait {
			return sdk.Row{}, fmt.Errorf("a loss claim needs a parcel in transit for more than 7 days")
		}
	default:
		return sdk.Row{}, fmt.Errorf("the claim kind must be damaged or lost, not %q", args.Kind)
	}
	if args.Amount <= 0 || args.Amount > s.Float("declared_value")+1e-9 {
		return sdk.Row{}, fmt.Errorf("the claim must be positive and at most the declared value of %.2f", s.Float("declared_value"))
	}
	res, err := sdk.Exec(`INSERT INTO claims (shipment_id, kind, amount, status, filed_at) VALUES (?, ?, ?, 'open', ?)`,
		s.Int("id"), kind, args.Amount, sdk.Now().Format(time.RFC3339))
	if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT c.id AS claim_id, s.tracking, c.kind, c.amount, c.status, c.filed_at FROM claims c JOIN shipments s ON s.id = c.shipment_id WHERE c.id = ?`, res.LastInsertID)
}
