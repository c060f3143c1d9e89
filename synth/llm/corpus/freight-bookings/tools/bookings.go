package tools

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// ListBookingsArgs name a customer and optionally a status.
type ListBookingsArgs struct {
	// The verified customer code.
	CustomerCode string `json:"customer_code"`
	// Only bookings with this status: confirmed or cancelled.
	Status *string `json:"status,omitempty"`
}

// ListBookings lists a customer's bookings and their count.
func ListBookings(args ListBookingsArgs) (map[string]any, error) {
	if err := customerExists(args.CustomerCode); err != nil {
		return nil, err
	}
	q := `SELECT b.id AS booking_id, b.voyage_id, po.name AS origin, pd.name AS destination, v.departs_on,
		b.containers_20, b.containers_40, b.status, b.total_price
		FROM bookings b JOIN voyages v ON v.id = b.voyage_id JOIN ports po ON po.code = v.origin_port JOIN ports pd ON pd.code = v.destination_port
		WHERE b.customer_code = ?`
	params := []any{args.CustomerCode}
	if args.Status != nil && *args.Status != "" {
		q += ` AND b.status = ?`
		params = append(params, strings.ToLower(strings.TrimSpace(*args.Status)))
	}
	rows, err := sdk.Query(q+` ORDER BY b.id`, params...)
	if err != nil {
		return nil, err
	}
	return map[string]any{"bookings": rows, "count": rows.Len()}, nil
}

// BookingArgs name one of the customer's bookings.
type BookingArgs struct {
	// The verified customer code.
	CustomerCode string `json:"customer_code"`
	// The booking id, such as BK-5001.
	BookingID string `json:"booking_id"`
}

// GetBooking returns one of the customer's bookings.
func GetBooking(args BookingArgs) (map[string]any, error) {
	b, err := ownBooking(args.CustomerCode, args.BookingID)
	if err != nil {
		return nil, err
	}
	return bookingView(b), nil
}

// CreateBookingArgs describe a new booking.
type CreateBookingArgs struct {
	// The verified customer code.
	CustomerCode string `json:"customer_code"`
	// The voyage id.
	VoyageID string `json:"voyage_id"`
	// Number of 20ft containers.
	Containers20 int `json:"containers_20"`
	// Number of 40ft containers.
	Containers40 int `json:"containers_40"`
}

// CreateBooking books containers on a voyage.
func CreateBooking(args CreateBookingArgs) (map[string]any, error) {
	if err := customerExists(args.CustomerCode); err != nil {
		return nil, err
	}
	if args.Containers20 < 0 || args.Containers40 < 0 || args.Containers20+args.Containers40 == 0 {
		return nil, fmt.Errorf("book at least one container, and no negative counts")
	}
	v, err := openVoyage(args.VoyageID)
	if err != nil {
		return nil, err
	}
	teu := args.Containers20 + 2*args.Containers40
	if int64(teu) > v.Int("free_teu") {
		return nil, fmt.Errorf("voyage %s has %d TEU free, the booking needs %d", v.String("id"), v.Int("free_teu"), teu)
	}
	last, err := sdk.QueryRow(`SELECT COALESCE(MAX(CAST(substr(id, 4) AS INTEGER)), 5000) AS n FROM bookings`)
	if err != nil {
		return nil, err
	}
	id := "BK-" + strconv.FormatInt(last.Int("n")+1, 10)
	price := cents(float64(teu) * v.Float("rate_per_teu"))
	if _, err := sdk.Exec(`INSERT INTO bookings (id, customer_code, voyage_id, containers_20, containers_40, status, total_price, cancellation_fee, created_at) VALUES (?, ?, ?, ?, ?, 'confirmed', ?, 0, ?)`,
		id, args.CustomerCode, v.String("id"), args.Containers20, args.Containers40, price, sdk.Now().UTC().Format(time.RFC3339)); err != nil {
		return nil, err
	}
	b, err := ownBooking(args.CustomerCode, id)
	if err != nil {
		return nil, err
	}
	return bookingView(b), nil
}

// ChangeContainersArgs describe a change of containers.
type ChangeContainersArgs struct {
	// The verified customer code.
	CustomerCode string `json:"customer_code"`
	// The booking id.
	BookingID string `json:"booking_id"`
	// 20ft containers to add (negative to remove).
	Change20 int `json:"change_20,omitempty"`
	// 40ft containers to add (negative to remove).
	Change40 int `json:"change_40,omitempty"`
}

// ChangeContainers adds or removes containers on a confirmed booking.
func ChangeContainers(args ChangeContainersArgs) (map[string]any, error) {
	b, err := confirmedBooking(args.CustomerCode, args.BookingID)
	if err != nil {
		return nil, err
	}
	if args.Change20 == 0 && args.Change40 == 0 {
		return nil, fmt.Errorf("no change asked for")
	}
	v, err := openVoyage(b.String("voyage_id"))
	if err != nil {
		return nil, err
	}
	c20, c40 := b.Int("containers_20")+int64(args.Change20), b.Int("containers_40")+int64(args.Change40)
	if c20 < 0 || c40 < 0 {
		return nil, fmt.Errorf("booking %s has %d x 20ft and %d x 40ft: cannot remove more", b.String("id"), b.Int("containers_20"), b.Int("containers_40"))
	}
	if c20+c40 == 0 {
		return nil, fmt.Errorf("a booking needs at least one container: cancel it instead")
	}
	if extra := int64(args.Change20 + 2*args.Change40); extra > v.Int("free_teu") {
		return nil, fmt.Errorf("voyage %s has %d TEU free, the change needs %d", v.String("id"), v.Int("free_teu"), extra)
	}
	price := cents(float64(c20+2*c40) * v.Float("rate_per_teu"))
	if _, err := sdk.Exec(`UPDATE bookings SET containers_20 = ?, containers_40 = ?, total_price = ? WHERE id = ?`, c20, c40, price, b.String("id")); err != nil {
		return nil, err
	}
	nb, err := ownBooking(args.CustomerCode, b.String("id"))
	if err != nil {
		return nil, err
	}
	return bookingView(nb), nil
}

// MoveBookingArgs name a booking and its new voyage.
type MoveBookingArgs struct {
	// The verified customer code.
	CustomerCode string `json:"customer_code"`
	// The booking id.
	BookingID string `json:"booking_id"`
	// The new voyage id.
	VoyageID string `json:"voyage_id"`
}

// MoveBooking moves a booking to a later voyage on the same route.
func MoveBooking(args MoveBookingArgs) (map[string]any, error) {
	b, err := confirmedBooking(args.CustomerCode, args.BookingID)
	if err != nil {
		return nil, err
	}
	v, err := openVoyage(args.VoyageID)
	if err != nil {
		return nil, err
	}
	if v.String("origin_port") != b.String("origin_port") || v.String("destination_port") != b.String("destination_port") {
		return nil, fmt.Errorf("voyage %s is on another route than booking %s", v.String("id"), b.String("id"))
	}
	if v.String("departs_on") <= b.String("departs_on") {
		return nil, fmt.Errorf("voyage %s does not depart later than the booking's voyage (%s)", v.String("id"), b.String("departs_on"))
	}
	teu := b.Int("containers_20") + 2*b.Int("containers_40")
	if teu > v.Int("free_teu") {
		return nil, fmt.Errorf("voyage %s has %d TEU free, the booking needs %d", v.String("id"), v.Int("free_teu"), teu)
	}
	price := cents(float64(teu) * v.Float("rate_per_teu"))
	if _, err := sdk.Exec(`UPDATE bookings SET voyage_id = ?, total_price = ? WHERE id = ?`, v.String("id"), price, b.String("id")); err != nil {
		return nil, err
	}
	nb, err := ownBooking(args.CustomerCode, b.String("id"))
	if err != nil {
		return nil, err
	}
	return bookingView(nb), nil
}

// CancelBooking cancels a confirmed booking, with a fee within 7 days of departure.
func CancelBooking(args BookingArgs) (map[string]any, error) {
	b, err := ownBooking(args.CustomerCode, args.BookingID)
	if err != nil {
		return nil, err
	}
	if b.String("status") != "confirmed" {
		return nil, fmt.Errorf("booking %s is already %s", b.String("id"), b.String("status"))
	}
	departs, err := time.Parse("2006-01-02", b.String("departs_on"))
	if err != nil {
		return nil, err
	}
	now := sdk.Now().UTC()
	fee := 0.0
	if departs.Sub(now) <= 7*24*time.Hour {
		fee = cents(b.Float("total_price") * 0.20)
	}
	if _, err := sdk.Exec(`UPDATE bookings SET status = 'cancelled', cancellation_fee = ?, cancelled_at = ? WHERE id = ?`, fee, now.Format(time.RFC3339), b.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"booking_id": b.String("id"), "status": "cancelled", "departs_on": b.String("departs_on"), "total_price": b.Float("total_price"), "cancellation_fee": fee}, nil
}

func ownBooking(customer, id string) (sdk.Row, error) {
	if err := customerExists(customer); err != nil {
		return sdk.Row{}, err
	}
	b, err := sdk.QueryRow(`SELECT b.id, b.voyage_id, v.origin_port, v.destination_port, v.departs_on, v.cutoff_on,
		b.containers_20, b.containers_40, b.status, b.total_price, b.cancellation_fee
		FROM bookings b JOIN voyages v ON v.id = b.voyage_id WHERE b.id = ? AND b.customer_code = ?`, strings.ToUpper(strings.TrimSpace(id)), customer)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("customer %s has no booking %q", customer, id)
	}
	return b, err
}

func confirmedBooking(customer, id string) (sdk.Row, error) {
	b, err := ownBooking(customer, id)
	if err != nil {
		return sdk.Row{}, err
	}
	if b.String("status") != "confirmed" {
		return sdk.Row{}, fmt.Errorf("booking %s is %s", b.String("id"), b.String("status"))
	}
	return b, nil
}

// openVoyage returns a voyage still before its cutoff, with its free TEU.
func openVoyage(id string) (sdk.Row, error) {
	v, err := sdk.QueryRow(`SELECT v.id, v.origin_port, v.destination_port, v.departs_on, v.cutoff_on, v.rate_per_teu,
		v.capacity_teu - `+usedTEU+` AS free_teu FROM voyages v WHERE v.id = ?`, strings.ToUpper(strings.TrimSpace(id)))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no voyage %q", id)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if sdk.Now().UTC().Format("2006-01-02") > v.String("cutoff_on") {
		return sdk.Row{}, fmt.Errorf("voyage %s is past its cutoff (%s)", v.String("id"), v.String("cutoff_on"))
	}
	return v, nil
}

func bookingView(b sdk.Row) map[string]any {
	return map[string]any{
		"booking_id": b.String("id"), "voyage_id": b.String("voyage_id"),
		"origin": b.String("origin_port"), "destination": b.String("destination_port"),
		"departs_on": b.String("departs_on"), "cutoff_on": b.String("cutoff_on"),
		"containers_20": b.Int("containers_20"), "containers_40": b.Int("containers_40"),
		"teu": b.Int("containers_20") + 2*b.Int("containers_40"), "status": b.String("status"),
		"total_price": b.Float("total_price"), "cancellation_fee": b.Float("cancellation_fee"),
	}
}
