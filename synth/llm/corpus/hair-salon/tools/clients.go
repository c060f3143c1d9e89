package tools

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// VerifyClientArgs are the arguments of verify_client.
type VerifyClientArgs struct {
	// Phone number such as 555-0101.
	Phone string `json:"phone"`
	// Date of birth YYYY-MM-DD.
	BirthDate string `json:"birth_date"`
}

// VerifyClient verifies a client by phone number and date of birth.
func VerifyClient(args VerifyClientArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id AS client_id, name, loyalty_points FROM clients WHERE phone = ? AND birth_date = ?`, strings.TrimSpace(args.Phone), strings.TrimSpace(args.BirthDate))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the phone number and date of birth do not match a client")
	}
	return row, err
}

func client(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, loyalty_points FROM clients WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no client has the id %q", id)
	}
	return row, err
}

// ClientArgs name a client.
type ClientArgs struct {
	// The client id verify_client returned.
	ClientID string `json:"client_id"`
}

// ListAppointments lists the client's appointments.
func ListAppointments(args ClientArgs) (sdk.Rows, error) {
	if _, err := client(args.ClientID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT a.id AS appointment_id, s.name AS stylist, a.starts_at, a.ends_at, a.status FROM appointments a JOIN stylists s ON s.id = a.stylist_id
		WHERE a.client_id = ? ORDER BY a.starts_at`, args.ClientID)
}

// AppointmentArgs name an appointment.
type AppointmentArgs struct {
	// The client id verify_client returned.
	ClientID string `json:"client_id"`
	// Appointment id such as AP-502.
	AppointmentID string `json:"appointment_id"`
}

func clientAppointment(clientID, id string) (sdk.Row, error) {
	if _, err := client(clientID); err != nil {
		return sdk.Row{}, err
	}
	a, err := sdk.QueryRow(`SELECT a.id, a.stylist_id, s.name AS stylist, a.starts_at, a.ends_at, a.status, a.discount, a.cancel_fee FROM appointments a
		JOIN stylists s ON s.id = a.stylist_id WHERE a.id = ? AND a.client_id = ?`, strings.ToUpper(strings.TrimSpace(id)), clientID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("appointment %q is not one of this client's appointments", id)
	}
	return a, err
}

// servicesTotal is the sum of an appointment's service prices.
func servicesTotal(id string) (float64, error) {
	r, err := sdk.QueryRow(`SELECT COALESCE(SUM(v.price), 0) AS total FROM appointment_services x JOIN services v ON v.id = x.service_id WHERE x.appointment_id = ?`, id)
	if err != nil {
		return 0, err
	}
	return r.Float("total"), nil
}

// GetAppointment returns an appointment with its services and total price.
func GetAppointment(args AppointmentArgs) (map[string]any, error) {
	a, err := clientAppointment(args.ClientID, args.AppointmentID)
	if err != nil {
		return nil, err
	}
	services, err := sdk.Query(`SELECT v.name, v.duration_min, v.price FROM appointment_services x JOIN services v ON v.id = x.service_id WHERE x.appointment_id = ? ORDER BY x.id`, a.String("id"))
	if err != nil {
		return nil, err
	}
	sum, err := servicesTotal(a.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"appointment_id": a.String("id"), "stylist": a.String("stylist"), "starts_at": a.String("starts_at"), "ends_at": a.String("ends_at"),
		"status": a.String("status"), "services": services, "discount": a.Float("discount"), "cancel_fee": a.Float("cancel_fee"), "total": sum - a.Float("discount")}, nil
}

// ListServices lists the services and who offers them.
func ListServices() (sdk.Rows, error) {
	return sdk.Query(`SELECT v.name, v.duration_min, v.price, group_concat(s.name, ', ') AS stylists FROM services v
		JOIN stylist_services ss ON ss.service_id = v.id JOIN stylists s ON s.id = ss.stylist_id GROUP BY v.id ORDER BY v.name`)
}

// StylistDayArgs name a stylist and a date.
type StylistDayArgs struct {
	// Stylist name such as Jade.
	StylistName string `json:"stylist_name"`
	// Date YYYY-MM-DD.
	Date string `json:"date"`
}

func stylistByName(name string) (sdk.Row, error) {
	s, err := sdk.QueryRow(`SELECT id, name FROM stylists WHERE lower(name) = ?`, strings.ToLower(strings.TrimSpace(name)))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no stylist is called %q", name)
	}
	return s, err
}

// StylistDay lists a stylist's booked appointments on a date.
func StylistDay(args StylistDayArgs) (map[string]any, error) {
	s, err := stylistByName(args.StylistName)
	if err != nil {
		return nil, err
	}
	booked, err := sdk.Query(`SELECT substr(starts_at, 12, 5) AS start, substr(ends_at, 12, 5) AS end FROM appointments WHERE stylist_id = ? AND status = 'booked' AND substr(starts_at, 1, 10) = ? ORDER BY starts_at`,
		s.String("id"), strings.TrimSpace(args.Date))
	if err != nil {
		return nil, err
	}
	return map[string]any{"stylist": s.String("name"), "date": strings.TrimSpace(args.Date), "hours": "09:00-18:00", "booked": booked}, nil
}

const stamp = "2006-01-02T15:04:05Z"

// fits checks a stylist's time from start to end: within 09:00-18:00 of one
// day, in the future, and free of other booked appointments (but skip).
func fits(stylistID string, start, end time.Time, skip string) error {
	open := time.Date(start.Year(), start.Month(), start.Day(), 9, 0, 0, 0, time.UTC)
	closing := open.Add(9 * time.Hour)
	if start.Before(open) || end.After(closing) {
		return fmt.Errorf("appointments must be between 09:00 and 18:00")
	}
	if !start.After(sdk.Now()) {
		return fmt.Errorf("the time must be in the future")
	}
	r, err := sdk.QueryRow(`SELECT COUNT(*) AS n FROM appointments WHERE stylist_id = ? AND status = 'booked' AND id != ? AND starts_at < ? AND ends_at > ?`,
		stylistID, skip, end.Format(stamp), start.Format(stamp))
	if err != nil {
		return err
	}
	if r.Int("n") > 0 {
		return fmt.Errorf("the stylist is busy between %s and %s", start.Format("2006-01-02 15:04"), end.Format("15:04"))
	}
	return nil
}

func nextAppointmentID() (string, error) {
	rows, err := sdk.Query(`SELECT id FROM appointments WHERE id LIKE 'AP-%'`)
	if err != nil {
		return "", err
	}
	max := 0
	for _, r := range rows.All() {
		if n, err := strconv.Atoi(strings.TrimPrefix(r.String("id"), "AP-")); err == nil && n > max {
			max = n
		}
	}
	return fmt.Sprintf("AP-%d", max+1), nil
}
