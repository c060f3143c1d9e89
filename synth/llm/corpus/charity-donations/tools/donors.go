package tools

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// taxYearStart is the first day of the current tax year (6 April).
const taxYearStart = "2024-04-06"

// FindDonorArgs identify a donor.
type FindDonorArgs struct {
	// The donor's email address.
	Email string `json:"email"`
}

// FindDonor looks a donor up by email.
func FindDonor(args FindDonorArgs) (map[string]any, error) {
	d, err := sdk.QueryRow(`SELECT id, name, email, gift_aid_declaration FROM donors WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no donor with email %q", args.Email)
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"donor_id": d.String("id"), "name": d.String("name"), "email": d.String("email"), "gift_aid_declaration": d.Bool("gift_aid_declaration")}, nil
}

// ListCampaignsArgs optionally filter campaigns by status.
type ListCampaignsArgs struct {
	// Only campaigns with this status: open or closed.
	Status *string `json:"status,omitempty"`
}

// ListCampaigns lists the charity's campaigns.
func ListCampaigns(args ListCampaignsArgs) (sdk.Rows, error) {
	q := `SELECT id AS campaign_id, name, status, closes_on FROM campaigns`
	if args.Status == nil || strings.TrimSpace(*args.Status) == "" {
		return sdk.Query(q + ` ORDER BY name`)
	}
	st := strings.ToLower(strings.TrimSpace(*args.Status))
	if st != "open" && st != "closed" {
		return sdk.Rows{}, fmt.Errorf("status must be open or closed, not %q", *args.Status)
	}
	return sdk.Query(q+` WHERE status = ? ORDER BY name`, st)
}

// ListDonationsArgs name a donor and optional filters.
type ListDonationsArgs struct {
	// The donor's id.
	DonorID string `json:"donor_id"`
	// Only donations to this campaign.
	CampaignID *string `json:"campaign_id,omitempty"`
	// Only donations on or after this date (YYYY-MM-DD).
	FromDate *string `json:"from_date,omitempty"`
	// Only donations on or before this date (YYYY-MM-DD).
	ToDate *string `json:"to_date,omitempty"`
}

// ListDonations lists a donor's one-off donations with their count and total.
func ListDonations(args ListDonationsArgs) (map[string]any, error) {
	if _, err := donor(args.DonorID); err != nil {
		return nil, err
	}
	q := `SELECT d.id AS donation_id, d.campaign_id, c.name AS campaign, d.amount, d.donated_at, d.gift_aid
		FROM donations d JOIN campaigns c ON c.id = d.campaign_id WHERE d.donor_id = ?`
	params := []any{args.DonorID}
	if args.CampaignID != nil && *args.CampaignID != "" {
		q += ` AND d.campaign_id = ?`
		params = append(params, *args.CampaignID)
	}
	for _, f := range []struct {
		v  *string
		op string
	}{{args.FromDate, ">="}, {args.ToDate, "<="}} {
		if f.v == nil || *f.v == "" {
			continue
		}
		if _, err := time.Parse("2006-01-02", *f.v); err != nil {
			return nil, fmt.Errorf("dates are YYYY-MM-DD, not %q", *f.v)
		}
		q += ` AND substr(d.donated_at, 1, 10) ` + f.op + ` ?`
		params = append(params, *f.v)
	}
	rows, err := sdk.Query(q+` ORDER BY d.donated_at DESC`, params...)
	if err != nil {
		return nil, err
	}
	total := 0.0
	for _, r := range rows.All() {
		total += r.Float("amount")
	}
	return map[string]any{"donations": rows, "count": rows.Len(), "total": cents(total)}, nil
}

// MakeDonationArgs name the donor, campaign and amount.
type MakeDonationArgs struct {
	// The donor's id.
	DonorID string `json:"donor_id"`
	// The campaign's id.
	CampaignID string `json:"campaign_id"`
	// The amount, such as 25.00.
	Amount float64 `json:"amount"`
}

// MakeDonation makes a one-off donation to an open campaign.
func MakeDonation(args MakeDonationArgs) (map[string]any, error) {
	if _, err := donor(args.DonorID); err != nil {
		return nil, err
	}
	c, err := openCampaign(args.CampaignID)
	if err != nil {
		return nil, err
	}
	if args.Amount <= 0 {
		return nil, fmt.Errorf("the amount must be positive")
	}
	at := sdk.Now().UTC().Format(time.RFC3339)
	res, err := sdk.Exec(`INSERT INTO donations (donor_id, campaign_id, amount, donated_at, gift_aid) VALUES (?, ?, ?, ?, 0)`,
		args.DonorID, c.String("id"), cents(args.Amount), at)
	if err != nil {
		return nil, err
	}
	return map[string]any{"donation_id": res.LastInsertID, "campaign": c.String("name"), "amount": cents(args.Amount), "donated_at": at, "gift_aid": false}, nil
}

// AddGiftAidArgs name the donor and donation.
type AddGiftAidArgs struct {
	// The donor's id.
	DonorID string `json:"donor_id"`
	// The donation's id.
	DonationID int64 `json:"donation_id"`
}

// AddGiftAid adds Gift Aid to a current-tax-year donation.
func AddGiftAid(args AddGiftAidArgs) (map[string]any, error) {
	d, err := donor(args.DonorID)
	if err != nil {
		return nil, err
	}
	don, err := sdk.QueryRow(`SELECT id, amount, donated_at, gift_aid FROM donations WHERE id = ? AND donor_id = ?`, args.DonationID, args.DonorID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("donor %s has no donation %d", args.DonorID, args.DonationID)
	}
	if err != nil {
		return nil, err
	}
	if !d.Bool("gift_aid_declaration") {
		return nil, fmt.Errorf("%s has no Gift Aid declaration", d.String("name"))
	}
	if don.String("donated_at")[:10] < taxYearStart {
		return nil, fmt.Errorf("donation %d was made before the current tax year (%s)", args.DonationID, taxYearStart)
	}
	if don.Bool("gift_aid") {
		return nil, fmt.Errorf("donation %d already has Gift Aid", args.DonationID)
	}
	if _, err := sdk.Exec(`UPDATE donations SET gift_aid = 1 WHERE id = ?`, args.DonationID); err != nil {
		return nil, err
	}
	return map[string]any{"donation_id": args.DonationID, "amount": don.Float("amount"), "donated_at": don.String("donated_at"), "gift_aid": true}, nil
}

func donor(id string) (sdk.Row, error) {
	d, err := sdk.QueryRow(`SELECT id, name, gift_aid_declaration FROM donors WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no donor %q", id)
	}
	return d, err
}

func openCampaign(id string) (sdk.Row, error) {
	c, err := sdk.QueryRow(`SELECT id, name, status FROM campaigns WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no campaign %q", id)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if c.String("status") != "open" {
		return sdk.Row{}, fmt.Errorf("campaign %s is closed to donations", c.String("name"))
	}
	return c, nil
}

func cents(v float64) float64 { return math.Round(v*100) / 100 }
