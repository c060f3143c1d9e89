package tools

import (
	"fmt"
	"math"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// FindSenderArgs are the arguments of find_sender.
type FindSenderArgs struct {
	// The sender's email address.
	Email string `json:"email"`
}

// FindSender finds a sender by email and returns id, name and email.
func FindSender(args FindSenderArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, name, email FROM senders WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no sender has the email %s", args.Email)
	}
	return row, err
}

func senderExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM senders WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no sender has the id %s", id)
	}
	return err
}

// price checks a service and weight and returns the price.
func price(service string, weight float64) (float64, error) {
	svc, err := sdk.QueryRow(`SELECT code, base_price, per_kg, max_weight_kg FROM services WHERE code = lower(?)`, strings.TrimSpace(service))
	if err == sdk.ErrNoRows {
		return 0, fmt.Errorf("no service is called %s (standard or express)", service)
	} else if err != nil {
		return 0, err
	}
	if weight <= 0 {
		return 0, fmt.Errorf("the weight must be positive")
	}
	if weight > svc.Float("max_weight_kg") {
		return 0, fmt.Errorf("%s takes parcels up to %g kg", svc.String("code"), svc.Float("max_weight_kg"))
	}
	return math.Round((svc.Float("base_price")+svc.Float("per_kg")*weight)*100) / 100, nil
}

// QuotePriceArgs are the arguments of quote_price.
type QuotePriceArgs struct {
	// standard or express.
	Service string `json:"service"`
	// The parcel's weight in kg.
	WeightKg float64 `json:"weight_kg"`
}

// QuotePrice returns the price of a parcel of this weight with a service.
func QuotePrice(args QuotePriceArgs) (map[string]any, error) {
	p, err := price(args.Service, args.WeightKg)
	if err != nil {
		return nil, err
	}
	return map[string]any{"service": strings.ToLower(strings.TrimSpace(args.Service)), "weight_kg": args.WeightKg, "price": p}, nil
}

// ListShipmentsArgs are the arguments of list_shipments.
type ListShipmentsArgs struct {
	// The sender's id from find_sender.
	SenderID string `json:"sender_id"`
	// Only this status.
	Status string `json:"status,omitempty"`
}

// ListShipments lists the sender's shipments, newest first.
func ListShipments(args ListShipmentsArgs) (sdk.Rows, error) {
	if err := senderExists(args.SenderID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT tracking, service, weight_kg, declared_value, price, recipient_name, recipient_address, status, created_at
		FROM shipments WHERE sender_id = ? AND (? = '' OR status = lower(?)) ORDER BY created_at DESC`, args.SenderID, args.Status, args.Status)
}

// ownShipment loads one of the sender's shipments by tracking number.
func ownShipment(sender, tracking string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, tracking, status, declared_value, created_at FROM shipments WHERE sender_id = ? AND upper(tracking) = upper(?)`,
		sender, strings.TrimSpace(tracking))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the sender has no shipment with tracking number %s", tracking)
	}
	return row, err
}

// TrackParcelArgs are the arguments of track_parcel.
type TrackParcelArgs struct {
	// The sender's id from find_sender.
	SenderID string `json:"sender_id"`
	// The tracking number, such as PK-20418.
	Tracking string `json:"tracking"`
}

// TrackParcel returns one of the sender's shipments with its scans.
func TrackParcel(args TrackParcelArgs) (map[string]any, error) {
	s, err := ownShipment(args.SenderID, args.Tracking)
	if err != nil {
		return nil, err
	}
	ship, err := sdk.QueryRow(`SELECT tracking, service, status, recipient_name, recipient_address, created_at FROM shipments WHERE id = ?`, s.Int("id"))
	if err != nil {
		return nil, err
	}
	scans, err := sdk.Query(`SELECT location, event, scanned_at FROM scans WHERE shipment_id = ? ORDER BY scanned_at, id`, s.Int("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"shipment": ship, "scans": scans}, nil
}
