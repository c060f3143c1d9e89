package tools

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

const day = "2006-01-02"

// FindDonorArgs are the arguments of find_donor.
type FindDonorArgs struct {
	// The donor's email.
	Email string `json:"email"`
}

// FindDonor finds the signed-in donor by email.
func FindDonor(args FindDonorArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT d.id AS donor_id, d.name, d.blood_type, c.name AS preferred_centre FROM donors d LEFT JOIN centres c ON c.id = d.preferred_centre_id WHERE lower(d.email) = ?`,
		strings.ToLower(strings.TrimSpace(args.Email)))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no donor has the email %q", args.Email)
	}
	return row, err
}

func donorExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM donors WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no donor has the id %q", id)
	}
	return err
}

// eligibleFrom is the first date the donor may give a kind of donation.
func eligibleFrom(donorID, kind string) (time.Time, error) {
	q := `SELECT MAX(donated_on) AS last FROM donations WHERE donor_id = ?`
	gap := 7
	if kind == "whole_blood" {
		q += ` AND kind = 'whole_blood'`
		gap = 56
	}
	r, err := sdk.QueryRow(q, donorID)
	if err != nil {
		return time.Time{}, err
	}
	today, _ := time.Parse(day, sdk.Now().UTC().Format(day))
	if r.IsNull("last") {
		return today, nil
	}
	last, err := time.Parse(day, r.String("last"))
	if err != nil {
		return time.Time{}, err
	}
	from := last.AddDate(0, 0, gap)
	if from.Before(today) {
		return today, nil
	}
	return from, nil
}

// DonorArgs name a donor.
type DonorArgs struct {
	// The donor id find_donor returned.
	DonorID string `json:"donor_id"`
}

// DonorHistory returns the donor's donations, appointments and eligibility dates.
func DonorHistory(args DonorArgs) (map[string]any, error) {
	if err := donorExists(args.DonorID); err != nil {
		return nil, err
	}
	donations, err := sdk.Query(`SELECT x.donated_on, x.kind, c.name AS centre FROM donations x JOIN centres c ON c.id = x.centre_id WHERE x.donor_id = ? ORDER BY x.donated_on DESC`, args.DonorID)
	if err != nil {
		return nil, err
	}
	appts, err := sdk.Query(`SELECT a.id AS appointment_id, c.name AS centre, s.starts_at, a.kind FROM appointments a JOIN slots s ON s.id = a.slot_id JOIN centres c ON c.id = s.centre_id
		WHERE a.donor_id = ? AND a.status = 'booked' ORDER BY s.starts_at`, args.DonorID)
	if err != nil {
		return nil, err
	}
	whole, err := eligibleFrom(args.DonorID, "whole_blood")
	if err != nil {
		return nil, err
	}
	plate, err := eligibleFrom(args.DonorID, "platelets")
	if err != nil {
		return nil, err
	}
	return map[string]any{"donations": donations, "booked_appointments": appts, "whole_blood_eligible_from": whole.Format(day), "platelets_eligible_from": plate.Format(day)}, nil
}

func centreID(name string) (string, error) {
	c, err := sdk.QueryRow(`SELECT id FROM centres WHERE lower(name) = ?`, strings.ToLower(strings.TrimSpace(name)))
	if err == sdk.ErrNoRows {
		return "", fmt.Errorf("no centre is called %q", name)
	}
	if err != nil {
		return "", err
	}
	return c.String("id"), nil
}

// ListSlotsArgs name a centre and a date.
type ListSlotsArgs struct {
	// Centre name such as Central Centre.
	CentreName string `json:"centre_name"`
	// Date YYYY-MM-DD.
	Date string `json:"date"`
}

// ListSlots lists a centre's slots on a date with places left.
func ListSlots(args ListSlotsArgs) (sdk.Rows, error) {
	id, err := centreID(args.CentreName)
	if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT substr(starts_at, 12, 5) AS time, capacity - booked AS places_left FROM slots WHERE centre_id = ? AND substr(starts_at, 1, 10) = ? ORDER BY starts_at`, id, strings.TrimSpace(args.Date))
}

// SetCentreArgs are the arguments of set_preferred_centre.
type SetCentreArgs struct {
	// The donor id find_donor returned.
	DonorID string `json:"donor_id"`
	// Centre name.
	CentreName string `json:"centre_name"`
}

// SetPreferredCentre sets the donor's preferred centre.
func SetPreferredCentre(args SetCentreArgs) (map[string]any, error) {
	if err := donorExists(args.DonorID); err != nil {
		return nil, err
	}
	id, err := centreID(args.CentreName)
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE donors SET preferred_centre_id = ? WHERE id = ?`, id, args.DonorID); err != nil {
		return nil, err
	}
	return map[string]any{"preferred_centre": strings.TrimSpace(args.CentreName)}, nil
}

func nextAppointmentID() (string, error) {
	rows, err := sdk.Query(`SELECT id FROM appointments WHERE id LIKE 'AP-%'`)
	if err != nil {
		return "", err
	}
	max := 0
	for _, r := range rows.All() {
		if k, err := strconv.Atoi(strings.TrimPrefix(r.String("id"), "AP-")); err == nil && k > max {
			max = k
		}
	}
	return fmt.Sprintf("AP-%d", max+1), nil
}
