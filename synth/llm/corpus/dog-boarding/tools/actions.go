package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// BookStayArgs are the arguments of book_stay.
type BookStayArgs struct {
	// dog id
	DogID string `json:"dog_id"`
	// kennel id
	KennelID string `json:"kennel_id"`
	// YYYY-MM-DD
	CheckIn string `json:"check_in"`
	// YYYY-MM-DD
	CheckOut string `json:"check_out"`
}

// BookStay books a stay for a dog in a kennel, taking a 20% deposit. It fails
// when the kennel's size is not the dog's, the kennel is not free every
// night, check-in is not after today, or the dog's rabies vaccination does
// not cover the last night.
func BookStay(args BookStayArgs) (sdk.Row, error) {
	dog, err := getDog(args.DogID)
	if err != nil {
		return sdk.Row{}, err
	}
	k, err := sdk.QueryRow("SELECT id, name, size, nightly_rate FROM kennels WHERE id = ?", args.KennelID)
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no kennel with id %q", args.KennelID)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if k.String("size") != dog.String("size") {
		return sdk.Row{}, fmt.Errorf("%s is a %s dog and %s is a %s kennel", dog.String("name"), dog.String("size"), k.String("name"), k.String("size"))
	}
	in, err := parseDate(args.CheckIn)
	if err != nil {
		return sdk.Row{}, err
	}
	out, err := parseDate(args.CheckOut)
	if err != nil {
		return sdk.Row{}, err
	}
	if !out.After(in) {
		return sdk.Row{}, errors.New("check-out must be after check-in")
	}
	if in.Format("2006-01-02") <= sdk.Now().UTC().Format("2006-01-02") {
		return sdk.Row{}, errors.New("check-in must be after today")
	}
	if err := covered(dog, out); err != nil {
		return sdk.Row{}, err
	}
	if err := kennelFree(k.String("id"), in, out, ""); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.QueryRow("SELECT id FROM stays WHERE dog_id = ? AND status = 'booked' AND check_in < ? AND check_out > ?", dog.String("id"), out.Format("2006-01-02"), in.Format("2006-01-02")); err == nil {
		return sdk.Row{}, fmt.Errorf("%s already has a stay on those nights", dog.String("name"))
	} else if !errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, err
	}
	next, err := sdk.QueryRow("SELECT COALESCE(MAX(CAST(substr(id, 4) AS INTEGER)), 0) + 1 AS n FROM stays WHERE id LIKE 'st-%'")
	if err != nil {
		return sdk.Row{}, err
	}
	id := fmt.Sprintf("st-%02d", next.Int("n"))
	rate := k.Float("nightly_rate")
	deposit := round2(float64(nights(in, out)) * rate * depositShare)
	if _, err := sdk.Exec("INSERT INTO stays (id, dog_id, kennel_id, check_in, check_out, status, nightly_rate, deposit, deposit_refunded) VALUES (?, ?, ?, ?, ?, 'booked', ?, ?, 0)",
		id, dog.String("id"), k.String("id"), in.Format("2006-01-02"), out.Format("2006-01-02"), rate, deposit); err != nil {
		return sdk.Row{}, err
	}
	return getStay(id)
}

// ChangeCheckOutArgs are the arguments of change_check_out.
type ChangeCheckOutArgs struct {
	// stay id
	StayID string `json:"stay_id"`
	// new check-out date, YYYY-MM-DD
	CheckOut string `json:"check_out"`
}

// ChangeCheckOut changes a booked stay's check-out date, to extend or shorten
// it; daily walks are repriced for the new nights. It fails when the kennel
// is not free for added nights, the rabies vaccination does not cover the new
// last night, or the stay would have no night.
func ChangeCheckOut(args ChangeCheckOutArgs) (sdk.Row, error) {
	s, err := bookedStay(args.StayID)
	if err != nil {
		return sdk.Row{}, err
	}
	in, err := parseDate(s.String("check_in"))
	if err != nil {
		return sdk.Row{}, err
	}
	out, err := parseDate(args.CheckOut)
	if err != nil {
		return sdk.Row{}, err
	}
	if !out.After(in) {
		return sdk.Row{}, errors.New("the stay needs at least one night: check-out must be after check-in")
	}
	dog, err := getDog(s.String("dog_id"))
	if err != nil {
		return sdk.Row{}, err
	}
	if err := covered(dog, out); err != nil {
		return sdk.Row{}, err
	}
	if err := kennelFree(s.String("kennel_id"), in, out, s.String("id")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE stays SET check_out = ? WHERE id = ?", out.Format("2006-01-02"), s.String("id")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE stay_extras SET price = ? WHERE stay_id = ? AND kind = 'walks'", round2(walkPerNight*float64(nights(in, out))), s.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getStay(s.String("id"))
}

// CancelStay cancels a booked stay. 72 hours or more before check-in (14:00)
// the deposit is refunded; later it is kept.
func CancelStay(args StayArgs) (sdk.Row, error) {
	s, err := bookedStay(args.StayID)
	if err != nil {
		return sdk.Row{}, err
	}
	in, err := parseDate(s.String("check_in"))
	if err != nil {
		return sdk.Row{}, err
	}
	refund := 0.0
	if in.Add(14*time.Hour).Sub(sdk.Now()).Hours() >= refundHours {
		refund = s.Float("deposit")
	}
	if _, err := sdk.Exec("UPDATE stays SET status = 'cancelled', deposit_refunded = ?, cancelled_at = ? WHERE id = ?", refund, sdk.Now().UTC().Format("2006-01-02T15:04:05Z"), s.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getStay(s.String("id"))
}

// AddExtraArgs are the arguments of add_extra.
type AddExtraArgs struct {
	// stay id
	StayID string `json:"stay_id"`
	// walks or grooming
	Kind string `json:"kind"`
}

// AddExtra adds daily walks (8.00 a night) or grooming (35.00) to a booked
// stay. It fails when the stay already has it.
func AddExtra(args AddExtraArgs) (sdk.Row, error) {
	s, err := bookedStay(args.StayID)
	if err != nil {
		return sdk.Row{}, err
	}
	kind := strings.ToLower(strings.TrimSpace(args.Kind))
	price := 0.0
	switch kind {
	case "walks":
		price = round2(walkPerNight * float64(s.Int("nights")))
	case "grooming":
		price = groomingPrice
	default:
		return sdk.Row{}, fmt.Errorf("extra %q is not walks or grooming", args.Kind)
	}
	if _, err := sdk.QueryRow("SELECT id FROM stay_extras WHERE stay_id = ? AND kind = ?", s.String("id"), kind); err == nil {
		return sdk.Row{}, fmt.Errorf("stay %s already has %s", s.String("id"), kind)
	} else if !errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("INSERT INTO stay_extras (stay_id, kind, price) VALUES (?, ?, ?)", s.String("id"), kind, price); err != nil {
		return sdk.Row{}, err
	}
	return getStay(s.String("id"))
}

// UpdateFeedingNotesArgs are the arguments of update_feeding_notes.
type UpdateFeedingNotesArgs struct {
	// dog id
	DogID string `json:"dog_id"`
	// the new feeding notes
	Notes string `json:"notes"`
}

// UpdateFeedingNotes replaces a dog's feeding notes.
func UpdateFeedingNotes(args UpdateFeedingNotesArgs) (sdk.Row, error) {
	dog, err := getDog(args.DogID)
	if err != nil {
		return sdk.Row{}, err
	}
	notes := strings.TrimSpace(args.Notes)
	if notes == "" {
		return sdk.Row{}, errors.New("the feeding notes are empty")
	}
	if _, err := sdk.Exec("UPDATE dogs SET feeding_notes = ? WHERE id = ?", notes, dog.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow("SELECT id AS dog_id, name, feeding_notes FROM dogs WHERE id = ?", dog.String("id"))
}
