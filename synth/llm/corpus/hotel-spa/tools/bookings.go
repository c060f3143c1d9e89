package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// stamp is how times are stored.
const stamp = "2006-01-02T15:04:05Z"

// FindFreeSlotsArgs name a therapist and a date.
type FindFreeSlotsArgs struct {
	// The therapist's name, such as Nina Park.
	TherapistName string `json:"therapist_name"`
	// The date (YYYY-MM-DD).
	Date string `json:"date"`
}

// FindFreeSlots lists a therapist's free start times on a date.
func FindFreeSlots(args FindFreeSlotsArgs) (map[string]any, error) {
	th, err := therapistByName(args.TherapistName)
	if err != nil {
		return nil, err
	}
	day, err := time.Parse("2006-01-02", strings.TrimSpace(args.Date))
	if err != nil {
		return nil, fmt.Errorf("date is YYYY-MM-DD, not %q", args.Date)
	}
	var free []string
	for h := 9; h <= 17; h++ {
		at := day.Add(time.Duration(h) * time.Hour)
		if !at.After(sdk.Now()) {
			continue
		}
		ok, err := therapistFree(th.String("id"), at.Format(stamp), 0)
		if err != nil {
			return nil, err
		}
		if ok {
			free = append(free, at.Format("15:04"))
		}
	}
	return map[string]any{"therapist": th.String("name"), "date": day.Format("2006-01-02"), "free_times": free}, nil
}

// BookTreatmentArgs describe a booking.
type BookTreatmentArgs struct {
	// The guest's id.
	GuestID string `json:"guest_id"`
	// The treatment's name.
	TreatmentName string `json:"treatment_name"`
	// The therapist's name.
	TherapistName string `json:"therapist_name"`
	// The date (YYYY-MM-DD).
	Date string `json:"date"`
	// The start time (HH:MM).
	Time string `json:"time"`
}

// BookTreatment books a treatment with a qualified, free therapist.
func BookTreatment(args BookTreatmentArgs) (map[string]any, error) {
	g, err := guest(args.GuestID)
	if err != nil {
		return nil, err
	}
	tr, err := treatmentByName(args.TreatmentName)
	if err != nil {
		return nil, err
	}
	th, err := therapistByName(args.TherapistName)
	if err != nil {
		return nil, err
	}
	at, err := slotTime(g, args.Date, args.Time)
	if err != nil {
		return nil, err
	}
	if err := canGive(th, tr, at, 0); err != nil {
		return nil, err
	}
	return insertBooking(args.GuestID, th, tr, at)
}

// AddTreatmentArgs name a booking and the treatment to add after it.
type AddTreatmentArgs struct {
	// The guest's id.
	GuestID string `json:"guest_id"`
	// The existing booking's id.
	BookingID int64 `json:"booking_id"`
	// The treatment to add.
	TreatmentName string `json:"treatment_name"`
}

// AddTreatment books another treatment right after an existing one, same therapist.
func AddTreatment(args AddTreatmentArgs) (map[string]any, error) {
	g, err := guest(args.GuestID)
	if err != nil {
		return nil, err
	}
	b, err := bookedBooking(args.GuestID, args.BookingID)
	if err != nil {
		return nil, err
	}
	tr, err := treatmentByName(args.TreatmentName)
	if err != nil {
		return nil, err
	}
	th, err := sdk.QueryRow(`SELECT id, name FROM therapists WHERE id = ?`, b.String("therapist_id"))
	if err != nil {
		return nil, err
	}
	start, err := time.Parse(stamp, b.String("starts_at"))
	if err != nil {
		return nil, err
	}
	at := start.Add(time.Duration(b.Int("duration_min")) * time.Minute)
	if at.Hour() > 17 || at.Minute() != 0 {
		return nil, fmt.Errorf("no slot right after booking %d within spa hours", args.BookingID)
	}
	if at.Format("2006-01-02") > g.String("check_out") {
		return nil, fmt.Errorf("the slot after booking %d is outside the guest's stay", args.BookingID)
	}
	if err := canGive(th, tr, at, 0); err != nil {
		return nil, err
	}
	return insertBooking(args.GuestID, th, tr, at)
}

// RescheduleBookingArgs name a booking and its new time.
type RescheduleBookingArgs struct {
	// The guest's id.
	GuestID string `json:"guest_id"`
	// The booking's id.
	BookingID int64 `json:"booking_id"`
	// The new date (YYYY-MM-DD).
	Date string `json:"date"`
	// The new start time (HH:MM).
	Time string `json:"time"`
	// The therapist, when changing; default the same.
	TherapistName *string `json:"therapist_name,omitempty"`
}

// RescheduleBooking moves a booked treatment to another free slot.
func RescheduleBooking(args RescheduleBookingArgs) (map[string]any, error) {
	g, err := guest(args.GuestID)
	if err != nil {
		return nil, err
	}
	b, err := bookedBooking(args.GuestID, args.BookingID)
	if err != nil {
		return nil, err
	}
	tr, err := sdk.QueryRow(`SELECT id, name, price, duration_min FROM treatments WHERE id = ?`, b.String("treatment_id"))
	if err != nil {
		return nil, err
	}
	th, err := sdk.QueryRow(`SELECT id, name FROM therapists WHERE id = ?`, b.String("therapist_id"))
	if err != nil {
		return nil, err
	}
	if args.TherapistName != nil && strings.TrimSpace(*args.TherapistName) != "" {
		if th, err = therapistByName(*args.TherapistName); err != nil {
			return nil, err
		}
	}
	at, err := slotTime(g, args.Date, args.Time)
	if err != nil {
		return nil, err
	}
	if err := canGive(th, tr, at, args.BookingID); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE bookings SET starts_at = ?, therapist_id = ? WHERE id = ?`, at.Format(stamp), th.String("id"), args.BookingID); err != nil {
		return nil, err
	}
	return map[string]any{"booking_id": args.BookingID, "treatment": tr.String("name"), "therapist": th.String("name"), "starts_at": at.Format(stamp), "status": "booked"}, nil
}

// CancelBookingArgs name a booking.
type CancelBookingArgs struct {
	// The guest's id.
	GuestID string `json:"guest_id"`
	// The booking's id.
	BookingID int64 `json:"booking_id"`
}

// CancelBooking cancels a booking, charged in full less than 24 hours ahead.
func CancelBooking(args CancelBookingArgs) (map[string]any, error) {
	if _, err := guest(args.GuestID); err != nil {
		return nil, err
	}
	b, err := bookedBooking(args.GuestID, args.BookingID)
	if err != nil {
		return nil, err
	}
	start, err := time.Parse(stamp, b.String("starts_at"))
	if err != nil {
		return nil, err
	}
	status, charge := "cancelled", 0.0
	if start.Sub(sdk.Now()) < 24*time.Hour {
		status, charge = "late_cancelled", b.Float("price")
	}
	if _, err := sdk.Exec(`UPDATE bookings SET status = ? WHERE id = ?`, status, args.BookingID); err != nil {
		return nil, err
	}
	return map[string]any{"booking_id": args.BookingID, "starts_at": b.String("starts_at"), "status": status, "charge": charge}, nil
}

func insertBooking(guestID string, th, tr sdk.Row, at time.Time) (map[string]any, error) {
	res, err := sdk.Exec(`INSERT INTO bookings (guest_id, therapist_id, treatment_id, starts_at, status, price, created_at) VALUES (?, ?, ?, ?, 'booked', ?, ?)`,
		guestID, th.String("id"), tr.String("id"), at.Format(stamp), tr.Float("price"), sdk.Now().UTC().Format(stamp))
	if err != nil {
		return nil, err
	}
	return map[string]any{"booking_id": res.LastInsertID, "treatment": tr.String("name"), "therapist": th.String("name"), "starts_at": at.Format(stamp), "price": tr.Float("price"), "status": "booked"}, nil
}

// slotTime parses a start time on the hour, in spa hours, in the future and during the stay.
func slotTime(g sdk.Row, date, clock string) (time.Time, error) {
	at, err := time.Parse("2006-01-02 15:04", strings.TrimSpace(date)+" "+strings.TrimSpace(clock))
	if err != nil {
		return time.Time{}, fmt.Errorf("give the date as YYYY-MM-DD and the time as HH:MM")
	}
	if at.Minute() != 0 || at.Hour() < 9 || at.Hour() > 17 {
		return time.Time{}, fmt.Errorf("treatments start on the hour between 09:00 and 17:00")
	}
	if !at.After(sdk.Now()) {
		return time.Time{}, fmt.Errorf("%s is in the past", at.Format("2006-01-02 15:04"))
	}
	d := at.Format("2006-01-02")
	if d < g.String("check_in") || d > g.String("check_out") {
		return time.Time{}, fmt.Errorf("%s is outside the guest's stay (%s to %s)", d, g.String("check_in"), g.String("check_out"))
	}
	return at, nil
}

// canGive checks the therapist is qualified and free at a time (ignoring one booking).
func canGive(th, tr sdk.Row, at time.Time, ignore int64) error {
	_, err := sdk.QueryRow(`SELECT therapist_id FROM therapist_treatments WHERE therapist_id = ? AND treatment_id = ?`, th.String("id"), tr.String("id"))
	if err == sdk.ErrNoRows {
		return fmt.Errorf("%s does not give %s", th.String("name"), tr.String("name"))
	}
	if err != nil {
		return err
	}
	ok, err := therapistFree(th.String("id"), at.Format(stamp), ignore)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%s is not free at %s", th.String("name"), at.Format("2006-01-02 15:04"))
	}
	return nil
}

func therapistFree(therapist, at string, ignore int64) (bool, error) {
	_, err := sdk.QueryRow(`SELECT id FROM bookings WHERE therapist_id = ? AND starts_at = ? AND status = 'booked' AND id <> ?`, therapist, at, ignore)
	if err == sdk.ErrNoRows {
		return true, nil
	}
	return false, err
}

func bookedBooking(guestID string, id int64) (sdk.Row, error) {
	b, err := sdk.QueryRow(`SELECT b.id, b.therapist_id, b.treatment_id, b.starts_at, b.status, b.price, t.duration_min
		FROM bookings b JOIN treatments t ON t.id = b.treatment_id WHERE b.id = ? AND b.guest_id = ?`, id, guestID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the guest has no booking %d", id)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if b.String("status") != "booked" {
		return sdk.Row{}, fmt.Errorf("booking %d is %s", id, b.String("status"))
	}
	return b, nil
}

func therapistByName(name string) (sdk.Row, error) {
	th, err := sdk.QueryRow(`SELECT id, name FROM therapists WHERE lower(name) = lower(?)`, strings.TrimSpace(name))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no therapist named %q", name)
	}
	return th, err
}

func treatmentByName(name string) (sdk.Row, error) {
	tr, err := sdk.QueryRow(`SELECT id, name, price, duration_min FROM treatments WHERE lower(name) = lower(?)`, strings.TrimSpace(name))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no treatment named %q", name)
	}
	return tr, err
}
