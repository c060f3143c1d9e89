package tools

import (
	"errors"
	"fmt"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// stamp is the clock as stored times are written.
func stamp() string { return sdk.Now().UTC().Format(time.RFC3339) }

// insertClaim opens a claim and, for a small appliance's repair, its mail-in label.
func insertClaim(serial, size, fault, cause, resolution string, covered int, paid float64) (map[string]any, error) {
	n, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM claims")
	if err != nil {
		return nil, err
	}
	id := fmt.Sprintf("cl-%d", 2001+n.Int("n"))
	var service any
	switch {
	case resolution == "replacement":
		service = nil
	case size == "small":
		service = "mail_in"
	default:
		service = "technician"
	}
	if _, err := sdk.Exec("INSERT INTO claims (id, serial, fault, cause, covered, resolution, service, status, amount_paid, opened_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'open', ?, ?)",
		id, serial, fault, cause, covered, resolution, service, paid, stamp()); err != nil {
		return nil, err
	}
	out := map[string]any{"claim_id": id, "serial": serial, "covered": covered == 1, "resolution": resolution, "service": service, "status": "open", "amount_paid": paid}
	if service == "mail_in" {
		l, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM mail_in_labels")
		if err != nil {
			return nil, err
		}
		code := fmt.Sprintf("PRE-%d", 88500001+l.Int("n"))
		if _, err := sdk.Exec("INSERT INTO mail_in_labels (id, claim_id, tracking_code, created_at) VALUES (?, ?, ?, ?)", fmt.Sprintf("ml-%d", 101+l.Int("n")), id, code, stamp()); err != nil {
			return nil, err
		}
		out["mail_in_label"] = code
	} else if service == "technician" {
		out["next_step"] = "book a technician visit with book_visit"
	}
	return out, nil
}

// customerClaim returns a claim of one of the customer's products.
func customerClaim(customerID, claimID string) (c sdk.Row, err error) {
	c, err = sdk.QueryRow("SELECT cl.id, cl.serial, cl.status, p.customer_id, m.size FROM claims cl JOIN products p ON p.serial = cl.serial JOIN models m ON m.id = p.model_id WHERE cl.id = ?", claimID)
	if errors.Is(err, sdk.ErrNoRows) {
		return c, fmt.Errorf("no claim with id %q", claimID)
	}
	if err != nil {
		return c, err
	}
	if c.String("customer_id") != customerID {
		return c, fmt.Errorf("claim %s is not this customer's", claimID)
	}
	return c, nil
}

// ListClaimsArgs are list_claims' arguments.
type ListClaimsArgs struct {
	// the verified customer's id
	CustomerID string `json:"customer_id"`
	// only this product
	Serial string `json:"serial,omitempty"`
}

// ListClaims lists the customer's claims.
func ListClaims(args ListClaimsArgs) (out sdk.Rows, err error) {
	if _, err := sdk.QueryRow("SELECT id FROM customers WHERE id = ?", args.CustomerID); err != nil {
		return out, fmt.Errorf("no customer with id %q", args.CustomerID)
	}
	q := "SELECT cl.id, cl.serial, cl.fault, cl.cause, cl.covered, cl.resolution, cl.service, cl.status, cl.amount_paid, substr(cl.opened_at, 1, 10) AS opened_on, (SELECT v.slot_date || ' ' || v.period FROM visit_slots v WHERE v.claim_id = cl.id) AS visit, (SELECT l.tracking_code FROM mail_in_labels l WHERE l.claim_id = cl.id) AS mail_in_label FROM claims cl JOIN products p ON p.serial = cl.serial WHERE p.customer_id = ?"
	params := []any{args.CustomerID}
	if args.Serial != "" {
		q += " AND upper(cl.serial) = upper(?)"
		params = append(params, args.Serial)
	}
	return sdk.Query(q+" ORDER BY cl.opened_at", params...)
}

// OpenClaimArgs are open_claim's arguments.
type OpenClaimArgs struct {
	// the verified customer's id
	CustomerID string `json:"customer_id"`
	// the product's serial
	Serial string `json:"serial"`
	// the problem in the customer's words
	Fault string `json:"fault"`
	// fault or accidental
	Cause string `json:"cause"`
	// repair or replacement
	Resolution string `json:"resolution,omitempty"`
}

// OpenClaim opens a claim under cover.
func OpenClaim(args OpenClaimArgs) (map[string]any, error) {
	c, err := coverOf(args.CustomerID, args.Serial)
	if err != nil {
		return nil, err
	}
	resolution := args.Resolution
	if resolution == "" {
		resolution = "repair"
	}
	if resolution != "repair" && resolution != "replacement" {
		return nil, fmt.Errorf("resolution %q is not repair or replacement", resolution)
	}
	switch args.Cause {
	case "fault":
		if !c.faultCovered {
			return nil, fmt.Errorf("product %s is not covered for faults today (cover ended %s): quote a repair at the customer's cost instead", c.serial, c.lastCovered)
		}
	case "accidental":
		if !c.accidentCovered {
			return nil, fmt.Errorf("product %s has no plan in force that covers accidental damage", c.serial)
		}
	default:
		return nil, fmt.Errorf("cause %q is not fault or accidental", args.Cause)
	}
	if open, err := openClaimOf(c.serial); err != nil {
		return nil, err
	} else if open != "" {
		return nil, fmt.Errorf("product %s already has open claim %s", c.serial, open)
	}
	if resolution == "replacement" && c.coveredRepairs < 3 {
		return nil, fmt.Errorf("product %s has had %d completed repairs under cover; a replacement needs 3", c.serial, c.coveredRepairs)
	}
	return insertClaim(c.serial, c.size, args.Fault, args.Cause, resolution, 1, 0)
}

// QuoteRepairArgs are quote_repair's arguments.
type QuoteRepairArgs struct {
	// the verified customer's id
	CustomerID string `json:"customer_id"`
	// the product's serial
	Serial string `json:"serial"`
	// the problem
	Fault string `json:"fault"`
}

// QuoteRepair records a quote for a repair at the customer's cost.
func QuoteRepair(args QuoteRepairArgs) (map[string]any, error) {
	c, err := coverOf(args.CustomerID, args.Serial)
	if err != nil {
		return nil, err
	}
	if c.faultCovered {
		return nil, fmt.Errorf("product %s is covered for faults until %s: open a claim instead", c.serial, c.lastCovered)
	}
	if open, err := openClaimOf(c.serial); err != nil {
		return nil, err
	} else if open != "" {
		return nil, fmt.Errorf("product %s already has open claim %s", c.serial, open)
	}
	n, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM quotes")
	if err != nil {
		return nil, err
	}
	id := fmt.Sprintf("q-%d", 2001+n.Int("n"))
	if _, err := sdk.Exec("INSERT INTO quotes (id, serial, fault, amount, status, created_at) VALUES (?, ?, ?, ?, 'offered', ?)", id, c.serial, args.Fault, c.repairPrice, stamp()); err != nil {
		return nil, err
	}
	return map[string]any{"quote_id": id, "serial": c.serial, "amount": c.repairPrice, "status": "offered"}, nil
}

// RespondToQuoteArgs are respond_to_quote's arguments.
type RespondToQuoteArgs struct {
	// the verified customer's id
	CustomerID string `json:"customer_id"`
	// the quote's id
	QuoteID string `json:"quote_id"`
	// true to accept, false to decline
	Accept bool `json:"accept"`
}

// RespondToQuote accepts a quote (a paid claim) or declines it.
func RespondToQuote(args RespondToQuoteArgs) (map[string]any, error) {
	q, err := sdk.QueryRow("SELECT id, serial, fault, amount, status FROM quotes WHERE id = ?", args.QuoteID)
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no quote with id %q", args.QuoteID)
	}
	if err != nil {
		return nil, err
	}
	p, err := customerProduct(args.CustomerID, q.String("serial"))
	if err != nil {
		return nil, err
	}
	if q.String("status") != "offered" {
		return nil, fmt.Errorf("quote %s is already %s", args.QuoteID, q.String("status"))
	}
	if !args.Accept {
		if _, err := sdk.Exec("UPDATE quotes SET status = 'declined' WHERE id = ?", args.QuoteID); err != nil {
			return nil, err
		}
		return map[string]any{"quote_id": args.QuoteID, "status": "declined"}, nil
	}
	claim, err := insertClaim(q.String("serial"), p.String("size"), q.String("fault"), "fault", "repair", 0, q.Float("amount"))
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE quotes SET status = 'accepted', claim_id = ? WHERE id = ?", claim["claim_id"], args.QuoteID); err != nil {
		return nil, err
	}
	claim["quote_id"] = args.QuoteID
	return claim, nil
}
