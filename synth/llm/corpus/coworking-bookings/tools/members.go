package tools

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

func today() string { return sdk.Now().UTC().Format("2006-01-02") }

// FindMemberArgs are the arguments of find_member.
type FindMemberArgs struct {
	// The member's email.
	Email string `json:"email"`
}

// FindMember finds the signed-in member by email.
func FindMember(args FindMemberArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT m.id AS member_id, m.name, p.name AS plan, p.monthly_hours, p.guest_pass_price FROM members m JOIN plans p ON p.id = m.plan_id
		WHERE lower(m.email) = ?`, strings.ToLower(strings.TrimSpace(args.Email)))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no member has the email %q", args.Email)
	}
	return row, err
}

func member(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT m.id, p.monthly_hours, p.guest_pass_price FROM members m JOIN plans p ON p.id = m.plan_id WHERE m.id = ?`, id)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no member has the id %q", id)
	}
	return row, err
}

// hoursUsed sums the hours of a member's active bookings in a month (YYYY-MM).
func hoursUsed(memberID, month string) (float64, error) {
	row, err := sdk.QueryRow(`SELECT COALESCE(SUM(hours), 0) AS used FROM bookings WHERE member_id = ? AND status = 'active' AND substr(booking_date, 1, 7) = ?`, memberID, month)
	if err != nil {
		return 0, err
	}
	return row.Float("used"), nil
}

// HoursSummaryArgs are the arguments of get_hours_summary.
type HoursSummaryArgs struct {
	// The member id find_member returned.
	MemberID string `json:"member_id"`
	// Month YYYY-MM.
	Month string `json:"month"`
}

// GetHoursSummary returns a member's allowance, used and remaining hours in a month.
func GetHoursSummary(args HoursSummaryArgs) (map[string]any, error) {
	m, err := member(args.MemberID)
	if err != nil {
		return nil, err
	}
	month := strings.TrimSpace(args.Month)
	if len(month) != 7 || month[4] != '-' {
		return nil, fmt.Errorf("month must be YYYY-MM, not %q", args.Month)
	}
	used, err := hoursUsed(args.MemberID, month)
	if err != nil {
		return nil, err
	}
	allowed := m.Float("monthly_hours")
	return map[string]any{"month": month, "hours_allowed": allowed, "hours_booked": used, "hours_remaining": allowed - used}, nil
}

// MemberArgs name a member.
type MemberArgs struct {
	// The member id find_member returned.
	MemberID string `json:"member_id"`
}

// ListBookings lists a member's bookings.
func ListBookings(args MemberArgs) (sdk.Rows, error) {
	if _, err := member(args.MemberID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT b.id AS booking_id, s.name AS space, b.booking_date, b.start_time, b.end_time, b.hours, b.attendees, b.status
		FROM bookings b JOIN spaces s ON s.id = b.space_id WHERE b.member_id = ? ORDER BY b.booking_date, b.start_time`, args.MemberID)
}

// ListSpaces lists the bookable spaces.
func ListSpaces() (sdk.Rows, error) {
	return sdk.Query(`SELECT name, kind, capacity FROM spaces ORDER BY kind, name`)
}

// ListInvoices lists a member's invoices.
func ListInvoices(args MemberArgs) (sdk.Rows, error) {
	if _, err := member(args.MemberID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT id AS invoice_id, month, amount, status FROM invoices WHERE member_id = ? ORDER BY month`, args.MemberID)
}

// GuestPassArgs are the arguments of buy_guest_pass.
type GuestPassArgs struct {
	// The member id find_member returned.
	MemberID string `json:"member_id"`
	// The guest's full name.
	GuestName string `json:"guest_name"`
	// Date YYYY-MM-DD.
	Date string `json:"date"`
}

// BuyGuestPass buys a guest day pass at the plan's price.
func BuyGuestPass(args GuestPassArgs) (map[string]any, error) {
	m, err := member(args.MemberID)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSpace(args.GuestName)
	if name == "" {
		return nil, fmt.Errorf("give the guest's name")
	}
	date := strings.TrimSpace(args.Date)
	if len(date) != 10 || date < today() {
		return nil, fmt.Errorf("the pass date must be today (%s) or later, as YYYY-MM-DD", today())
	}
	res, err := sdk.Exec(`INSERT INTO guest_passes (member_id, guest_name, pass_date, price) VALUES (?, ?, ?, ?)`, args.MemberID, name, date, m.Float("guest_pass_price"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"pass_id": res.LastInsertID, "guest_name": name, "date": date, "price": m.Float("guest_pass_price")}, nil
}
