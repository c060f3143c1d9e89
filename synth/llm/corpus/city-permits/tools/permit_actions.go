package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// ApplyPermitArgs are the arguments of apply_permit.
type ApplyPermitArgs struct {
	// The verified resident's id.
	ResidentID string `json:"resident_id"`
	// parking, event or building.
	Type string `json:"type"`
	// What the permit is for (the car plate, the event, the works).
	Description string `json:"description"`
	// The event's date, YYYY-MM-DD (event permits only).
	EventDate string `json:"event_date,omitempty"`
}

// ApplyPermit submits a permit application at the type's fee.
func ApplyPermit(args ApplyPermitArgs) (sdk.Row, error) {
	if err := residentExists(args.ResidentID); err != nil {
		return sdk.Row{}, err
	}
	pt, err := sdk.QueryRow(`SELECT code, fee FROM permit_types WHERE code = lower(?)`, strings.TrimSpace(args.Type))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no permit type %q (parking, event or building)", args.Type)
	} else if err != nil {
		return sdk.Row{}, err
	}
	desc := strings.TrimSpace(args.Description)
	if desc == "" {
		return sdk.Row{}, errors.New("describe what the permit is for")
	}
	var eventDate any
	switch pt.String("code") {
	case "event":
		d, err := time.Parse("2006-01-02", strings.TrimSpace(args.EventDate))
		if err != nil {
			return sdk.Row{}, errors.New("an event permit needs the event date, YYYY-MM-DD")
		}
		if d.Format("2006-01-02") <= sdk.Now().Format("2006-01-02") {
			return sdk.Row{}, errors.New("the event date must be in the future")
		}
		eventDate = d.Format("2006-01-02")
	case "parking":
		held, err := sdk.QueryRow(`SELECT (SELECT count(*) FROM permits WHERE resident_id = ? AND type = 'parking' AND active = 1) AS active,
				(SELECT count(*) FROM applications WHERE resident_id = ? AND type = 'parking' AND status IN ('submitted','paid')) AS open`, args.ResidentID, args.ResidentID)
		if err != nil {
			return sdk.Row{}, err
		}
		if held.Int("active") > 0 {
			return sdk.Row{}, errors.New("the resident already holds an active parking permit")
		}
		if held.Int("open") > 0 {
			return sdk.Row{}, errors.New("the resident already has an open parking application")
		}
	}
	res, err := sdk.Exec(`INSERT INTO applications (resident_id, type, description, event_date, fee, status, submitted_at, paid_at, decided_at)
		VALUES (?, ?, ?, ?, ?, 'submitted', ?, NULL, NULL)`, args.ResidentID, pt.String("code"), desc, eventDate, pt.Float("fee"), sdk.Now().Format(time.RFC3339))
	if err != nil {
		return sdk.Row{}, err
	}
	return applicationView(res.LastInsertID)
}

func applicationView(id int64) (sdk.Row, error) {
	return sdk.QueryRow(`SELECT id AS application_id, type, description, coalesce(event_date, '') AS event_date, fee, status,
			submitted_at, coalesce(paid_at, '') AS paid_at FROM applications WHERE id = ?`, id)
}

func ownApplication(resident string, id int64) (sdk.Row, error) {
	a, err := sdk.QueryRow(`SELECT id, status FROM applications WHERE id = ? AND resident_id = ?`, id, resident)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the resident has no application %d", id)
	}
	return a, err
}

// PayApplicationArgs are the arguments of pay_application.
type PayApplicationArgs struct {
	// The verified resident's id.
	ResidentID string `json:"resident_id"`
	// The application's id.
	ApplicationID int64 `json:"application_id"`
}

// PayApplication pays a submitted application's fee.
func PayApplication(args PayApplicationArgs) (sdk.Row, error) {
	a, err := ownApplication(args.ResidentID, args.ApplicationID)
	if err != nil {
		return sdk.Row{}, err
	}
	if a.String("status") != "submitted" {
		return sdk.Row{}, fmt.Errorf("application %d is %s, not awaiting payment", args.ApplicationID, a.String("status"))
	}
	if _, err := sdk.Exec(`UPDATE applications SET status = 'paid', paid_at = ? WHERE id = ?`, sdk.Now().Format(time.RFC3339), args.ApplicationID); err != nil {
		return sdk.Row{}, err
	}
	return applicationView(args.ApplicationID)
}

// WithdrawApplicationArgs are the arguments of withdraw_application.
type WithdrawApplicationArgs struct {
	// The verified resident's id.
	ResidentID string `json:"resident_id"`
	// The application's id.
	ApplicationID int64 `json:"application_id"`
}

// WithdrawApplication withdraws an application not yet decided.
func WithdrawApplication(args WithdrawApplicationArgs) (sdk.Row, error) {
	a, err := ownApplication(args.ResidentID, args.ApplicationID)
	if err != nil {
		return sdk.Row{}, err
	}
	if st := a.String("status"); st != "submitted" && st != "paid" {
		return sdk.Row{}, fmt.Errorf("application %d is %s and can no longer be withdrawn", args.ApplicationID, st)
	}
	if _, err := sdk.Exec(`UPDATE applications SET status = 'withdrawn' WHERE id = ?`, args.ApplicationID); err != nil {
		return sdk.Row{}, err
	}
	return applicationView(args.ApplicationID)
}
