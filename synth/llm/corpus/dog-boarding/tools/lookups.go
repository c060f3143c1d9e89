package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// GetOwnerArgs are the arguments of get_owner.
type GetOwnerArgs struct {
	// the owner's email
	Email string `json:"email"`
}

// GetOwner finds the signed-in owner by email, with their dogs: dog id, name,
// size, rabies valid until, feeding notes.
func GetOwner(args GetOwnerArgs) (map[string]any, error) {
	o, err := sdk.QueryRow("SELECT id, name, email FROM owners WHERE lower(email) = lower(?)", strings.TrimSpace(args.Email))
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no owner with email %q", args.Email)
	}
	if err != nil {
		return nil, err
	}
	dogs, err := sdk.Query("SELECT id AS dog_id, name, size, rabies_valid_until, feeding_notes FROM dogs WHERE owner_id = ? ORDER BY name", o.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"owner_id": o.String("id"), "name": o.String("name"), "dogs": dogs}, nil
}

// ListKennels lists the kennels: id, name, size and nightly rate.
func ListKennels() (sdk.Rows, error) {
	return sdk.Query("SELECT id, name, size, nightly_rate FROM kennels ORDER BY id")
}

// FindFreeKennelsArgs are the arguments of find_free_kennels.
type FindFreeKennelsArgs struct {
	// small, medium or large
	Size string `json:"size"`
	// YYYY-MM-DD
	CheckIn string `json:"check_in"`
	// YYYY-MM-DD
	CheckOut string `json:"check_out"`
}

// FindFreeKennels lists the kennels of a size free for every night from
// check-in to check-out.
func FindFreeKennels(args FindFreeKennelsArgs) (sdk.Rows, error) {
	size := strings.ToLower(strings.TrimSpace(args.Size))
	if size != "small" && size != "medium" && size != "large" {
		return sdk.Rows{}, fmt.Errorf("size %q is not small, medium or large", args.Size)
	}
	in, err := parseDate(args.CheckIn)
	if err != nil {
		return sdk.Rows{}, err
	}
	out, err := parseDate(args.CheckOut)
	if err != nil {
		return sdk.Rows{}, err
	}
	if !out.After(in) {
		return sdk.Rows{}, fmt.Errorf("check-out must be after check-in")
	}
	return sdk.Query("SELECT id, name, size, nightly_rate FROM kennels k WHERE size = ? AND NOT EXISTS (SELECT 1 FROM stays s WHERE s.kennel_id = k.id AND s.status = 'booked' AND s.check_in < ? AND s.check_out > ?) ORDER BY id",
		size, out.Format("2006-01-02"), in.Format("2006-01-02"))
}

// DogArgs name a dog.
type DogArgs struct {
	// dog id
	DogID string `json:"dog_id"`
}

// ListStays lists a dog's stays: stay id, kennel, check-in, check-out, nights,
// status, nightly rate, extras, total, deposit and deposit refunded.
func ListStays(args DogArgs) (sdk.Rows, error) {
	if _, err := getDog(args.DogID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query("SELECT s.id AS stay_id, k.name AS kennel, s.check_in, s.check_out, CAST(julianday(s.check_out) - julianday(s.check_in) AS INTEGER) AS nights, s.status, s.nightly_rate, COALESCE((SELECT group_concat(kind, ',') FROM (SELECT kind FROM stay_extras WHERE stay_id = s.id ORDER BY kind)), '') AS extras, round((julianday(s.check_out) - julianday(s.check_in)) * s.nightly_rate + COALESCE((SELECT SUM(price) FROM stay_extras WHERE stay_id = s.id), 0), 2) AS total, s.deposit, s.deposit_refunded FROM stays s JOIN kennels k ON k.id = s.kennel_id WHERE s.dog_id = ? ORDER BY s.check_in", args.DogID)
}

// StayArgs name a stay.
type StayArgs struct {
	// stay id
	StayID string `json:"stay_id"`
}

// GetStayCost returns a stay's cost: nights times the nightly rate, the
// extras, and the total.
func GetStayCost(args StayArgs) (map[string]any, error) {
	s, err := getStay(args.StayID)
	if err != nil {
		return nil, err
	}
	extras, err := sdk.Query("SELECT kind, price FROM stay_extras WHERE stay_id = ? ORDER BY kind", s.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"stay_id": s.String("id"), "dog": s.String("dog"), "nights": s.Int("nights"), "nightly_rate": s.Float("nightly_rate"), "nights_price": round2(float64(s.Int("nights")) * s.Float("nightly_rate")), "extras": extras, "total": s.Float("total")}, nil
}
