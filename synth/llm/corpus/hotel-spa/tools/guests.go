package tools

import (
	"fmt"
	"math"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// FindGuestArgs identify a guest.
type FindGuestArgs struct {
	// The guest's email.
	Email string `json:"email"`
}

// FindGuest looks a hotel guest up by email.
func FindGuest(args FindGuestArgs) (map[string]any, error) {
	g, err := sdk.QueryRow(`SELECT id, name, room_number, check_in, check_out FROM guests WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no guest with email %q", args.Email)
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"guest_id": g.String("id"), "name": g.String("name"), "room_number": g.String("room_number"), "check_in": g.String("check_in"), "check_out": g.String("check_out")}, nil
}

// ListTreatments lists the treatments and who is qualified for each.
func ListTreatments() (sdk.Rows, error) {
	return sdk.Query(`SELECT t.name, t.duration_min, t.price,
		(SELECT group_concat(th.name, ', ') FROM therapist_treatments q JOIN therapists th ON th.id = q.therapist_id WHERE q.treatment_id = t.id) AS therapists
		FROM treatments t ORDER BY t.name`)
}

// GuestArgs name a guest.
type GuestArgs struct {
	// The guest's id.
	GuestID string `json:"guest_id"`
}

// ListBookings lists a guest's spa bookings.
func ListBookings(args GuestArgs) (sdk.Rows, error) {
	if _, err := guest(args.GuestID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT b.id AS booking_id, t.name AS treatment, th.name AS therapist, b.starts_at, b.status, b.price
		FROM bookings b JOIN treatments t ON t.id = b.treatment_id JOIN therapists th ON th.id = b.therapist_id
		WHERE b.guest_id = ? ORDER BY b.starts_at`, args.GuestID)
}

// RedeemVoucherArgs name a guest and a voucher.
type RedeemVoucherArgs struct {
	// The guest's id.
	GuestID string `json:"guest_id"`
	// The voucher code, such as SPA-50.
	Code string `json:"code"`
}

// RedeemVoucher redeems a guest's voucher once.
func RedeemVoucher(args RedeemVoucherArgs) (map[string]any, error) {
	if _, err := guest(args.GuestID); err != nil {
		return nil, err
	}
	v, err := sdk.QueryRow(`SELECT code, guest_id, value, redeemed_at FROM vouchers WHERE code = ?`, strings.ToUpper(strings.TrimSpace(args.Code)))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no voucher %q", args.Code)
	}
	if err != nil {
		return nil, err
	}
	if v.String("guest_id") != args.GuestID {
		return nil, fmt.Errorf("voucher %s belongs to another guest", v.String("code"))
	}
	if !v.IsNull("redeemed_at") {
		return nil, fmt.Errorf("voucher %s was already redeemed on %s", v.String("code"), v.String("redeemed_at"))
	}
	at := sdk.Now().UTC().Format(stamp)
	if _, err := sdk.Exec(`UPDATE vouchers SET redeemed_at = ? WHERE code = ?`, at, v.String("code")); err != nil {
		return nil, err
	}
	return map[string]any{"code": v.String("code"), "value": v.Float("value"), "redeemed_at": at}, nil
}

// GetSpaCharges sums a guest's spa charges and redeemed vouchers.
func GetSpaCharges(args GuestArgs) (map[string]any, error) {
	if _, err := guest(args.GuestID); err != nil {
		return nil, err
	}
	items, err := sdk.Query(`SELECT t.name AS treatment, b.starts_at, b.status, b.price FROM bookings b JOIN treatments t ON t.id = b.treatment_id
		WHERE b.guest_id = ? AND b.status IN ('booked', 'late_cancelled') ORDER BY b.starts_at`, args.GuestID)
	if err != nil {
		return nil, err
	}
	total := 0.0
	for _, r := range items.All() {
		total += r.Float("price")
	}
	vs, err := sdk.Query(`SELECT code, value FROM vouchers WHERE guest_id = ? AND redeemed_at IS NOT NULL ORDER BY code`, args.GuestID)
	if err != nil {
		return nil, err
	}
	vouchers := 0.0
	for _, r := range vs.All() {
		vouchers += r.Float("value")
	}
	return map[string]any{"charges": items, "total_charges": cents(total), "vouchers_redeemed": vs, "voucher_total": cents(vouchers), "balance": cents(math.Max(0, total-vouchers))}, nil
}

func guest(id string) (sdk.Row, error) {
	g, err := sdk.QueryRow(`SELECT id, check_in, check_out FROM guests WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no guest %q", id)
	}
	return g, err
}

func cents(v float64) float64 { return math.Round(v*100) / 100 }
