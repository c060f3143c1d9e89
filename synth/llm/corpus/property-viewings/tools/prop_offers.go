package tools

import (
	"fmt"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// ListMyOffers lists the buyer's offers.
func ListMyOffers(args BuyerArgs) (sdk.Rows, error) {
	if err := buyerExists(args.BuyerID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT p.address, o.amount, o.status, o.made_at FROM offers o JOIN properties p ON p.id = o.property_id WHERE o.buyer_id = ? ORDER BY o.made_at`, args.BuyerID)
}

// MakeOfferArgs are the arguments of make_offer.
type MakeOfferArgs struct {
	// The buyer's id.
	BuyerID string `json:"buyer_id"`
	// The property's id.
	PropertyID string `json:"property_id"`
	// The offer in whole pounds.
	Amount int `json:"amount"`
}

// MakeOffer records an open offer on a listed property the buyer has viewed.
func MakeOffer(args MakeOfferArgs) (sdk.Row, error) {
	if err := buyerExists(args.BuyerID); err != nil {
		return sdk.Row{}, err
	}
	p, err := property(args.PropertyID)
	if err != nil {
		return sdk.Row{}, err
	}
	if p.String("status") != "listed" {
		return sdk.Row{}, fmt.Errorf("%s is %s", p.String("address"), p.String("status"))
	}
	if args.Amount <= 0 {
		return sdk.Row{}, fmt.Errorf("an offer must be a positive amount")
	}
	if _, err := sdk.QueryRow(`SELECT id FROM past_viewings WHERE property_id = ? AND buyer_id = ?`, p.String("id"), args.BuyerID); err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the buyer has not viewed %s", p.String("address"))
	} else if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.QueryRow(`SELECT id FROM offers WHERE property_id = ? AND buyer_id = ? AND status = 'open'`, p.String("id"), args.BuyerID); err == nil {
		return sdk.Row{}, fmt.Errorf("the buyer already has an open offer on %s: withdraw it first", p.String("address"))
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	res, err := sdk.Exec(`INSERT INTO offers (property_id, buyer_id, amount, status, made_at) VALUES (?, ?, ?, 'open', ?)`, p.String("id"), args.BuyerID, args.Amount, sdk.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, property_id, buyer_id, amount, status, made_at FROM offers WHERE id = ?`, res.LastInsertID)
}

// WithdrawOfferArgs are the arguments of withdraw_offer.
type WithdrawOfferArgs struct {
	// The buyer's id.
	BuyerID string `json:"buyer_id"`
	// The property's id.
	PropertyID string `json:"property_id"`
}

// WithdrawOffer withdraws the buyer's open offer on a property.
func WithdrawOffer(args WithdrawOfferArgs) (sdk.Row, error) {
	if err := buyerExists(args.BuyerID); err != nil {
		return sdk.Row{}, err
	}
	p, err := property(args.PropertyID)
	if err != nil {
		return sdk.Row{}, err
	}
	o, err := sdk.QueryRow(`SELECT id FROM offers WHERE property_id = ? AND buyer_id = ? AND status = 'open'`, p.String("id"), args.BuyerID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the buyer has no open offer on %s", p.String("address"))
	} else if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`UPDATE offers SET status = 'withdrawn' WHERE id = ?`, o.Int("id")); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, property_id, buyer_id, amount, status, made_at FROM offers WHERE id = ?`, o.Int("id"))
}
