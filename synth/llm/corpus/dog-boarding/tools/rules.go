package tools

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

const (
	walkPerNight  = 8.0
	groomingPrice = 35.0
	depositShare  = 0.20
	refundHours   = 72
)

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func parseDate(s string) (time.Time, error) {
	t, err := time.Parse("2006-01-02", strings.TrimSpace(s))
	if err != nil {
		return t, fmt.Errorf("date %q is not in YYYY-MM-DD form", s)
	}
	return t, nil
}

// nights counts the nights from check-in to check-out.
func nights(in, out time.Time) int { return int(out.Sub(in).Hours() / 24) }

func getDog(id string) (sdk.Row, error) {
	d, err := sdk.QueryRow("SELECT id, owner_id, name, size, rabies_valid_until, feeding_notes FROM dogs WHERE id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return d, fmt.Errorf("no dog with id %q", id)
	}
	return d, err
}

// covered fails when the dog's rabies vaccination ends before the last night.
func covered(dog sdk.Row, out time.Time) error {
	last := out.AddDate(0, 0, -1).Format("2006-01-02")
	if dog.String("rabies_valid_until") < last {
		return fmt.Errorf("%s's rabies vaccination is valid until %s, which does not cover the night of %s", dog.String("name"), dog.String("rabies_valid_until"), last)
	}
	return nil
}

// kennelFree fails when another booked stay uses the kennel on a night
// between in and out.
func kennelFree(kennelID string, in, out time.Time, except string) error {
	s, err := sdk.QueryRow("SELECT id, check_in, check_out FROM stays WHERE kennel_id = ? AND status = 'booked' AND check_in < ? AND check_out > ? AND id <> ?",
		kennelID, out.Format("2006-01-02"), in.Format("2006-01-02"), except)
	if err == nil {
		return fmt.Errorf("kennel %s is taken from %s to %s", kennelID, s.String("check_in"), s.String("check_out"))
	}
	if errors.Is(err, sdk.ErrNoRows) {
		return nil
	}
	return err
}

func getStay(id string) (sdk.Row, error) {
	s, err := sdk.QueryRow("SELECT s.id, s.dog_id, d.name AS dog, s.kennel_id, k.name AS kennel, s.check_in, s.check_out, CAST(julianday(s.check_out) - julianday(s.check_in) AS INTEGER) AS nights, s.status, s.nightly_rate, s.deposit, s.deposit_refunded, COALESCE((SELECT group_concat(kind, ',') FROM (SELECT kind FROM stay_extras WHERE stay_id = s.id ORDER BY kind)), '') AS extras, round((julianday(s.check_out) - julianday(s.check_in)) * s.nightly_rate + COALESCE((SELECT SUM(price) FROM stay_extras WHERE stay_id = s.id), 0), 2) AS total FROM stays s JOIN dogs d ON d.id = s.dog_id JOIN kennels k ON k.id = s.kennel_id WHERE s.id = ?", id)
	if errors.Is(err, sdk.ErrNoRows) {
		return s, fmt.Errorf("no stay with id %q", id)
	}
	return s, err
}

func bookedStay(id string) (sdk.Row, error) {
	s, err := getStay(id)
	if err != nil {
		return s, err
	}
	if s.String("status") != "booked" {
		return s, fmt.Errorf("stay %s is %s", id, s.String("status"))
	}
	return s, nil
}
