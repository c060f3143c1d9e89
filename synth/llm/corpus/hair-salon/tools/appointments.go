package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

func offered(stylistID, serviceName string) (sdk.Row, error) {
	v, err := sdk.QueryRow(`SELECT v.id, v.name, v.duration_min, v.price FROM services v WHERE lower(v.name) = ?`, strings.ToLower(strings.TrimSpace(serviceName)))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no service is called %q", serviceName)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.QueryRow(`SELECT service_id FROM stylist_services WHERE stylist_id = ? AND service_id = ?`, stylistID, v.String("id")); err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("this stylist does not offer %s", v.String("name"))
	} else if err != nil {
		return sdk.Row{}, err
	}
	return v, nil
}

// BookAppointmentArgs are the arguments of book_appointment.
type BookAppointmentArgs struct {
	// The client id verify_client returned.
	ClientID string `json:"client_id"`
	// The stylist's name.
	StylistName string `json:"stylist_name"`
	// Service name such as Women's haircut.
	ServiceName string `json:"service_name"`
	// Date YYYY-MM-DD.
	Date string `json:"date"`
	// Start time HH:MM.
	Time string `json:"time"`
}

// BookAppointment books one service with a stylist who is free.
func BookAppointment(args BookAppointmentArgs) (map[string]any, error) {
	if _, err := client(args.ClientID); err != nil {
		return nil, err
	}
	s, err := stylistByName(args.StylistName)
	if err != nil {
		return nil, err
	}
	v, err := offered(s.String("id"), args.ServiceName)
	if err != nil {
		return nil, err
	}
	start, err := time.Parse("2006-01-02 15:04", strings.TrimSpace(args.Date)+" "+strings.TrimSpace(args.Time))
	if err != nil {
		return nil, fmt.Errorf("give the date as YYYY-MM-DD and the time as HH:MM")
	}
	end := start.Add(time.Duration(v.Int("duration_min")) * time.Minute)
	if err := fits(s.String("id"), start, end, ""); err != nil {
		return nil, err
	}
	id, err := nextAppointmentID()
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO appointments (id, client_id, stylist_id, starts_at, ends_at, status, discount, cancel_fee) VALUES (?, ?, ?, ?, ?, 'booked', 0, 0)`,
		id, args.ClientID, s.String("id"), start.Format(stamp), end.Format(stamp)); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO appointment_services (appointment_id, service_id) VALUES (?, ?)`, id, v.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"appointment_id": id, "stylist": s.String("name"), "service": v.String("name"), "starts_at": start.Format(stamp), "ends_at": end.Format(stamp), "price": v.Float("price")}, nil
}

func bookedAppointment(clientID, id string) (sdk.Row, error) {
	a, err := clientAppointment(clientID, id)
	if err != nil {
		return sdk.Row{}, err
	}
	if a.String("status") != "booked" {
		return sdk.Row{}, fmt.Errorf("appointment %s is %s", a.String("id"), a.String("status"))
	}
	return a, nil
}

// AddServiceArgs are the arguments of add_service.
type AddServiceArgs struct {
	// The client id verify_client returned.
	ClientID string `json:"client_id"`
	// Appointment id.
	AppointmentID string `json:"appointment_id"`
	// Service name such as Blow-dry.
	ServiceName string `json:"service_name"`
}

// AddService adds a service to a booked appointment when the longer slot fits.
func AddService(args AddServiceArgs) (map[string]any, error) {
	a, err := bookedAppointment(args.ClientID, args.AppointmentID)
	if err != nil {
		return nil, err
	}
	v, err := offered(a.String("stylist_id"), args.ServiceName)
	if err != nil {
		return nil, err
	}
	if _, err := sdk.QueryRow(`SELECT id FROM appointment_services WHERE appointment_id = ? AND service_id = ?`, a.String("id"), v.String("id")); err == nil {
		return nil, fmt.Errorf("appointment %s already includes %s", a.String("id"), v.String("name"))
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	start, _ := time.Parse(time.RFC3339, a.String("starts_at"))
	end, _ := time.Parse(time.RFC3339, a.String("ends_at"))
	newEnd := end.Add(time.Duration(v.Int("duration_min")) * time.Minute)
	if err := fits(a.String("stylist_id"), start, newEnd, a.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE appointments SET ends_at = ? WHERE id = ?`, newEnd.Format(stamp), a.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO appointment_services (appointment_id, service_id) VALUES (?, ?)`, a.String("id"), v.String("id")); err != nil {
		return nil, err
	}
	total, err := servicesTotal(a.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"appointment_id": a.String("id"), "ends_at": newEnd.Format(stamp), "total": total - a.Float("discount")}, nil
}

// RescheduleArgs are the arguments of reschedule_appointment.
type RescheduleArgs struct {
	// The client id verify_client returned.
	ClientID string `json:"client_id"`
	// Appointment id.
	AppointmentID string `json:"appointment_id"`
	// New date YYYY-MM-DD.
	Date string `json:"date"`
	// New start time HH:MM.
	Time string `json:"time"`
}

// RescheduleAppointment moves a booked appointment with the same stylist.
func RescheduleAppointment(args RescheduleArgs) (map[string]any, error) {
	a, err := bookedAppointment(args.ClientID, args.AppointmentID)
	if err != nil {
		return nil, err
	}
	oldStart, _ := time.Parse(time.RFC3339, a.String("starts_at"))
	oldEnd, _ := time.Parse(time.RFC3339, a.String("ends_at"))
	start, err := time.Parse("2006-01-02 15:04", strings.TrimSpace(args.Date)+" "+strings.TrimSpace(args.Time))
	if err != nil {
		return nil, fmt.Errorf("give the date as YYYY-MM-DD and the time as HH:MM")
	}
	end := start.Add(oldEnd.Sub(oldStart))
	if err := fits(a.String("stylist_id"), start, end, a.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE appointments SET starts_at = ?, ends_at = ? WHERE id = ?`, start.Format(stamp), end.Format(stamp), a.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"appointment_id": a.String("id"), "stylist": a.String("stylist"), "starts_at": start.Format(stamp), "ends_at": end.Format(stamp)}, nil
}

// CancelAppointment cancels a booked appointment, with a fee within 24 hours.
func CancelAppointment(args AppointmentArgs) (map[string]any, error) {
	a, err := bookedAppointment(args.ClientID, args.AppointmentID)
	if err != nil {
		return nil, err
	}
	start, _ := time.Parse(time.RFC3339, a.String("starts_at"))
	fee := 0.0
	if start.Sub(sdk.Now()) < 24*time.Hour {
		fee = 25.0
	}
	if _, err := sdk.Exec(`UPDATE appointments SET status = 'cancelled', cancel_fee = ? WHERE id = ?`, fee, a.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"appointment_id": a.String("id"), "status": "cancelled", "cancel_fee": fee}, nil
}

// RedeemArgs are the arguments of redeem_points.
type RedeemArgs struct {
	// The client id verify_client returned.
	ClientID string `json:"client_id"`
	// Appointment id.
	AppointmentID string `json:"appointment_id"`
	// Points to redeem, a multiple of 100.
	Points int `json:"points"`
}

// RedeemPoints takes 5.00 off an appointment per 100 loyalty points.
func RedeemPoints(args RedeemArgs) (map[string]any, error) {
	a, err := bookedAppointment(args.ClientID, args.AppointmentID)
	if err != nil {
		return nil, err
	}
	c, err := client(args.ClientID)
	if err != nil {
		return nil, err
	}
	if args.Points <= 0 || args.Points%100 != 0 {
		return nil, fmt.Errorf("points are redeemed in hundreds, not %d", args.Points)
	}
	if int64(args.Points) > c.Int("loyalty_points") {
		return nil, fmt.Errorf("the client has only %d points", c.Int("loyalty_points"))
	}
	total, err := servicesTotal(a.String("id"))
	if err != nil {
		return nil, err
	}
	off := float64(args.Points/100) * 5
	if a.Float("discount")+off > total {
		return nil, fmt.Errorf("the discount would exceed the appointment's price of %.2f", total)
	}
	if _, err := sdk.Exec(`UPDATE appointments SET discount = discount + ? WHERE id = ?`, off, a.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE clients SET loyalty_points = loyalty_points - ? WHERE id = ?`, args.Points, args.ClientID); err != nil {
		return nil, err
	}
	return map[string]any{"appointment_id": a.String("id"), "discount": a.Float("discount") + off, "total": total - a.Float("discount") - off, "points_left": c.Int("loyalty_points") - int64(args.Points)}, nil
}
