package tools

import (
	"fmt"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// DonorArgs name a donor.
type DonorArgs struct {
	// The donor's id.
	DonorID string `json:"donor_id"`
}

// ListMonthlyDonations lists a donor's monthly donations.
func ListMonthlyDonations(args DonorArgs) (sdk.Rows, error) {
	if _, err := donor(args.DonorID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT m.id AS monthly_id, m.campaign_id, c.name AS campaign, m.amount, m.start_date, m.status
		FROM monthly_donations m JOIN campaigns c ON c.id = m.campaign_id WHERE m.donor_id = ? ORDER BY m.id`, args.DonorID)
}

// CreateMonthlyDonationArgs describe a new monthly donation.
type CreateMonthlyDonationArgs struct {
	// The donor's id.
	DonorID string `json:"donor_id"`
	// The campaign's id.
	CampaignID string `json:"campaign_id"`
	// The monthly amount, such as 10.00.
	Amount float64 `json:"amount"`
	// The first payment date (YYYY-MM-DD).
	StartDate string `json:"start_date"`
}

// CreateMonthlyDonation sets up a monthly donation to an open campaign.
func CreateMonthlyDonation(args CreateMonthlyDonationArgs) (map[string]any, error) {
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
	start, err := time.Parse("2006-01-02", args.StartDate)
	if err != nil {
		return nil, fmt.Errorf("start_date is YYYY-MM-DD, not %q", args.StartDate)
	}
	if start.Before(sdk.Now().UTC().Truncate(24 * time.Hour)) {
		return nil, fmt.Errorf("the start date %s is in the past", args.StartDate)
	}
	_, err = sdk.QueryRow(`SELECT id FROM monthly_donations WHERE donor_id = ? AND campaign_id = ? AND status = 'active'`, args.DonorID, c.String("id"))
	if err == nil {
		return nil, fmt.Errorf("the donor already has an active monthly donation to %s", c.String("name"))
	}
	if err != sdk.ErrNoRows {
		return nil, err
	}
	res, err := sdk.Exec(`INSERT INTO monthly_donations (donor_id, campaign_id, amount, start_date, status) VALUES (?, ?, ?, ?, 'active')`,
		args.DonorID, c.String("id"), cents(args.Amount), args.StartDate)
	if err != nil {
		return nil, err
	}
	return map[string]any{"monthly_id": res.LastInsertID, "campaign": c.String("name"), "amount": cents(args.Amount), "start_date": args.StartDate, "status": "active"}, nil
}

// UpdateMonthlyDonationArgs name a monthly donation and its new amount.
type UpdateMonthlyDonationArgs struct {
	// The donor's id.
	DonorID string `json:"donor_id"`
	// The monthly donation's id.
	MonthlyID int64 `json:"monthly_id"`
	// The new monthly amount.
	Amount float64 `json:"amount"`
}

// UpdateMonthlyDonation changes an active monthly donation's amount.
func UpdateMonthlyDonation(args UpdateMonthlyDonationArgs) (map[string]any, error) {
	m, err := activeMonthly(args.DonorID, args.MonthlyID)
	if err != nil {
		return nil, err
	}
	if args.Amount <= 0 {
		return nil, fmt.Errorf("the amount must be positive")
	}
	if _, err := sdk.Exec(`UPDATE monthly_donations SET amount = ? WHERE id = ?`, cents(args.Amount), args.MonthlyID); err != nil {
		return nil, err
	}
	return map[string]any{"monthly_id": args.MonthlyID, "campaign_id": m.String("campaign_id"), "old_amount": m.Float("amount"), "amount": cents(args.Amount), "status": "active"}, nil
}

// MonthlyArgs name one of the donor's monthly donations.
type MonthlyArgs struct {
	// The donor's id.
	DonorID string `json:"donor_id"`
	// The monthly donation's id.
	MonthlyID int64 `json:"monthly_id"`
}

// CancelMonthlyDonation cancels an active monthly donation.
func CancelMonthlyDonation(args MonthlyArgs) (map[string]any, error) {
	m, err := activeMonthly(args.DonorID, args.MonthlyID)
	if err != nil {
		return nil, err
	}
	at := sdk.Now().UTC().Format(time.RFC3339)
	if _, err := sdk.Exec(`UPDATE monthly_donations SET status = 'cancelled', cancelled_at = ? WHERE id = ?`, at, args.MonthlyID); err != nil {
		return nil, err
	}
	return map[string]any{"monthly_id": args.MonthlyID, "campaign_id": m.String("campaign_id"), "amount": m.Float("amount"), "status": "cancelled", "cancelled_at": at}, nil
}

func activeMonthly(donorID string, id int64) (sdk.Row, error) {
	if _, err := donor(donorID); err != nil {
		return sdk.Row{}, err
	}
	m, err := sdk.QueryRow(`SELECT id, campaign_id, amount, status FROM monthly_donations WHERE id = ? AND donor_id = ?`, id, donorID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("donor %s has no monthly donation %d", donorID, id)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if m.String("status") != "active" {
		return sdk.Row{}, fmt.Errorf("monthly donation %d is already cancelled", id)
	}
	return m, nil
}
