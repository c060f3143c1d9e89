package tools

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// FindMemberArgs are the arguments of find_member.
type FindMemberArgs struct {
	// The member's email address.
	Email string `json:"email"`
}

// FindMember finds a member by email. Returns id, name, email, balance and
// status; fails when no member has that email.
func FindMember(args FindMemberArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, name, email, balance, status FROM members WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no member has the email %s", args.Email)
	}
	return row, err
}

// ListStations lists every station with its capacity, bikes docked, free
// docks and the bikes that can be rented there by kind.
func ListStations() (sdk.Rows, error) {
	return sdk.Query(`SELECT st.id, st.name, st.capacity,
			(SELECT count(*) FROM bikes b WHERE b.station_id = st.id) AS docked,
			st.capacity - (SELECT count(*) FROM bikes b WHERE b.station_id = st.id) AS free_docks,
			(SELECT count(*) FROM bikes b WHERE b.station_id = st.id AND b.status = 'docked' AND b.kind = 'classic') AS classic_available,
			(SELECT count(*) FROM bikes b WHERE b.station_id = st.id AND b.status = 'docked' AND b.kind = 'electric') AS electric_available
		FROM stations st ORDER BY st.name`)
}

// ListBikesArgs are the arguments of list_bikes.
type ListBikesArgs struct {
	// The station's name, such as Central Station.
	Station string `json:"station"`
	// classic or electric.
	Kind string `json:"kind,omitempty"`
	// Only bikes that can be rented.
	AvailableOnly bool `json:"available_only,omitempty"`
}

// ListBikes lists the bikes docked at a station with label, kind and
// status, optionally of one kind or only those that can be rented.
func ListBikes(args ListBikesArgs) (sdk.Rows, error) {
	st, err := stationByName(args.Station)
	if err != nil {
		return sdk.Rows{}, err
	}
	only := 0
	if args.AvailableOnly {
		only = 1
	}
	return sdk.Query(`SELECT label, kind, status FROM bikes
		WHERE station_id = ? AND (? = '' OR kind = lower(?)) AND (? = 0 OR status = 'docked')
		ORDER BY label`, st.String("id"), args.Kind, args.Kind, only)
}

func stationByName(name string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, name, capacity FROM stations WHERE lower(name) = lower(?)`, strings.TrimSpace(name))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no station is called %s", name)
	}
	return row, err
}

func memberByID(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, name, balance, status FROM members WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no member has the id %s", id)
	}
	return row, err
}

// ListRidesArgs are the arguments of list_rides.
type ListRidesArgs struct {
	// The member's id from find_member.
	MemberID string `json:"member_id"`
}

// ListRides lists a member's rides, newest first, with bike, stations,
// times, fare and status. Fails for an unknown member.
func ListRides(args ListRidesArgs) (sdk.Rows, error) {
	if _, err := memberByID(args.MemberID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT r.id AS ride_id, b.label AS bike_label, b.kind, s1.name AS start_station, coalesce(s2.name, '') AS end_station,
			r.started_at, coalesce(r.ended_at, '') AS ended_at, r.fare, r.status
		FROM rides r JOIN bikes b ON b.id = r.bike_id JOIN stations s1 ON s1.id = r.start_station_id
		LEFT JOIN stations s2 ON s2.id = r.end_station_id
		WHERE r.member_id = ? ORDER BY r.started_at DESC`, args.MemberID)
}
