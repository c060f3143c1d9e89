package tools

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// minBalance is the balance a member needs to start a ride.
const minBalance = 2.00

// RentBikeArgs are the arguments of rent_bike.
type RentBikeArgs struct {
	// The member's id from find_member.
	MemberID string `json:"member_id"`
	// The bike's label, such as B-102.
	BikeLabel string `json:"bike_label"`
}

// RentBike starts a ride on a docked, undamaged bike. Fails for a suspended
// member, one with an active ride or a balance under 2.00, or a bike that
// is unknown, damaged or not docked.
func RentBike(args RentBikeArgs) (sdk.Row, error) {
	m, err := memberByID(args.MemberID)
	if err != nil {
		return sdk.Row{}, err
	}
	if m.String("status") != "active" {
		return sdk.Row{}, fmt.Errorf("the account of %s is %s: it cannot rent bikes", m.String("name"), m.String("status"))
	}
	if m.Float("balance") < minBalance {
		return sdk.Row{}, fmt.Errorf("the balance %.2f is under the %.2f needed to start a ride", m.Float("balance"), minBalance)
	}
	if _, err := sdk.QueryRow(`SELECT id FROM rides WHERE member_id = ? AND status = 'active'`, args.MemberID); err == nil {
		return sdk.Row{}, errors.New("the member already has an active ride: end it first")
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	b, err := sdk.QueryRow(`SELECT id, label, kind, status, coalesce(station_id, '') AS station_id FROM bikes WHERE upper(label) = upper(?)`, strings.TrimSpace(args.BikeLabel))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no bike has the label %s", args.BikeLabel)
	} else if err != nil {
		return sdk.Row{}, err
	}
	switch b.String("status") {
	case "damaged":
		return sdk.Row{}, fmt.Errorf("bike %s is reported damaged and cannot be rented", b.String("label"))
	case "rented":
		return sdk.Row{}, fmt.Errorf("bike %s is out on a ride", b.String("label"))
	}
	now := sdk.Now().Format(time.RFC3339)
	res, err := sdk.Exec(`INSERT INTO rides (member_id, bike_id, start_station_id, end_station_id, started_at, ended_at, fare, status)
		VALUES (?, ?, ?, NULL, ?, NULL, NULL, 'active')`, args.MemberID, b.Int("id"), b.String("station_id"), now)
	if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`UPDATE bikes SET status = 'rented', station_id = NULL WHERE id = ?`, b.Int("id")); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT r.id AS ride_id, b.label AS bike_label, b.kind, s.name AS start_station, r.started_at, r.status
		FROM rides r JOIN bikes b ON b.id = r.bike_id JOIN stations s ON s.id = r.start_station_id WHERE r.id = ?`, res.LastInsertID)
}

// EndRideArgs are the arguments of end_ride.
type EndRideArgs struct {
	// The member's id from find_member.
	MemberID string `json:"member_id"`
	// The station's name, such as Riverside Park.
	Station string `json:"station"`
}

// EndRide docks the member's bike at a station with a free dock and charges
// 1.00 plus 0.10 (classic) or 0.25 (electric) per whole minute.
func EndRide(args EndRideArgs) (map[string]any, error) {
	if _, err := memberByID(args.MemberID); err != nil {
		return nil, err
	}
	ride, err := sdk.QueryRow(`SELECT r.id, r.bike_id, r.started_at, b.kind, b.label FROM rides r JOIN bikes b ON b.id = r.bike_id
		WHERE r.member_id = ? AND r.status = 'active'`, args.MemberID)
	if err == sdk.ErrNoRows {
		return nil, errors.New("the member has no active ride")
	} else if err != nil {
		return nil, err
	}
	st, err := stationByName(args.Station)
	if err != nil {
		return nil, err
	}
	docked, err := sdk.QueryRow(`SELECT count(*) AS n FROM bikes WHERE station_id = ?`, st.String("id"))
	if err != nil {
		return nil, err
	}
	if docked.Int("n") >= st.Int("capacity") {
		return nil, fmt.Errorf("%s has no free dock", st.String("name"))
	}
	started, err := time.Parse(time.RFC3339, ride.String("started_at"))
	if err != nil {
		return nil, fmt.Errorf("the ride's start time %q is not readable", ride.String("started_at"))
	}
	end := sdk.Now()
	minutes := math.Floor(end.Sub(started).Minutes())
	if minutes < 0 {
		minutes = 0
	}
	rate := 0.10
	if ride.String("kind") == "electric" {
		rate = 0.25
	}
	fare := math.Round((1.00+rate*minutes)*100) / 100
	if _, err := sdk.Exec(`UPDATE rides SET status = 'completed', end_station_id = ?, ended_at = ?, fare = ? WHERE id = ?`,
		st.String("id"), end.Format(time.RFC3339), fare, ride.Int("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE bikes SET status = 'docked', station_id = ? WHERE id = ?`, st.String("id"), ride.Int("bike_id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE members SET balance = round(balance - ?, 2) WHERE id = ?`, fare, args.MemberID); err != nil {
		return nil, err
	}
	m, err := memberByID(args.MemberID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"ride_id": ride.Int("id"), "bike_label": ride.String("label"), "end_station": st.String("name"),
		"minutes": int(minutes), "fare": fare, "balance": m.Float("balance")}, nil
}

// ReportDamageArgs are the arguments of report_damage.
type ReportDamageArgs struct {
	// The reporting member's id from find_member.
	MemberID string `json:"member_id"`
	// The bike's label, such as B-204.
	BikeLabel string `json:"bike_label"`
	// What is wrong with the bike.
	Description string `json:"description"`
}

// ReportDamage records a damage report for a docked bike and marks it
// damaged. Fails for an unknown bike, one out on a ride or already
// damaged, or an empty description.
func ReportDamage(args ReportDamageArgs) (sdk.Row, error) {
	if _, err := memberByID(args.MemberID); err != nil {
		return sdk.Row{}, err
	}
	desc := strings.TrimSpace(args.Description)
	if desc == "" {
		return sdk.Row{}, errors.New("describe what is wrong with the bike")
	}
	b, err := sdk.QueryRow(`SELECT id, label, status FROM bikes WHERE upper(label) = upper(?)`, strings.TrimSpace(args.BikeLabel))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no bike has the label %s", args.BikeLabel)
	} else if err != nil {
		return sdk.Row{}, err
	}
	switch b.String("status") {
	case "damaged":
		return sdk.Row{}, fmt.Errorf("bike %s is already reported damaged", b.String("label"))
	case "rented":
		return sdk.Row{}, fmt.Errorf("bike %s is out on a ride: report it once it is docked", b.String("label"))
	}
	res, err := sdk.Exec(`INSERT INTO damage_reports (bike_id, member_id, description, reported_at) VALUES (?, ?, ?, ?)`,
		b.Int("id"), args.MemberID, desc, sdk.Now().Format(time.RFC3339))
	if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`UPDATE bikes SET status = 'damaged' WHERE id = ?`, b.Int("id")); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT d.id AS report_id, b.label AS bike_label, d.description, d.reported_at FROM damage_reports d JOIN bikes b ON b.id = d.bike_id WHERE d.id = ?`, res.LastInsertID)
}
