package tools

import (
	"errors"

	"github.com/wasmenv/wasmenv/sdk/py"
)

// Calculate the result of a mathematical expression.
func Calculate(args CalculateArgs) (string, error) {
	return py.Calculate(args.Expression)
}

type CalculateArgs struct {
	// The mathematical expression to calculate, such as '2 + 2'. The expression can contain numbers, operators (+, -, *, /), parentheses, and spaces.
	Expression string `json:"expression"`
}

// Get the details of a reservation.
func GetReservationDetails(args GetReservationDetailsArgs) (string, error) {
	text, err := py.RecordText("reservations", args.ReservationID)
	if err != nil {
		return "", err
	}
	if text == "" {
		return "", errors.New("user not found") // sic: τ-bench says "user"
	}
	return text, nil
}

type GetReservationDetailsArgs struct {
	// The reservation id, such as '8JX2WO'.
	ReservationID string `json:"reservation_id"`
}

// Get the details of an user, including their reservations.
func GetUserDetails(args GetUserDetailsArgs) (string, error) {
	text, err := py.RecordText("users", args.UserID)
	if err != nil {
		return "", err
	}
	if text == "" {
		return "", errors.New("user not found")
	}
	return text, nil
}

type GetUserDetailsArgs struct {
	// The user id, such as 'sara_doe_496'.
	UserID string `json:"user_id"`
}

// List all airports and their cities.
func ListAllAirports() (string, error) {
	return `{"SFO": "San Francisco", "JFK": "New York", "LAX": "Los Angeles", "ORD": "Chicago", "DFW": "Dallas", "DEN": "Denver", "SEA": "Seattle", "ATL": "Atlanta", "MIA": "Miami", "BOS": "Boston", "PHX": "Phoenix", "IAH": "Houston", "LAS": "Las Vegas", "MCO": "Orlando", "EWR": "Newark", "CLT": "Charlotte", "MSP": "Minneapolis", "DTW": "Detroit", "PHL": "Philadelphia", "LGA": "LaGuardia"}`, nil
}

// Use the tool to think about something. It will not obtain new information or change the database, but just append the thought to the log. Use it when complex reasoning is needed.
func Think(args ThinkArgs) (string, error) {
	return "", nil
}

type ThinkArgs struct {
	// A thought to think about.
	Thought string `json:"thought"`
}

// Transfer the user to a human agent, with a summary of the user's issue. Only transfer if the user explicitly asks for a human agent, or if the user's issue cannot be resolved by the agent with the available tools.
func TransferToHumanAgents(args TransferToHumanAgentsArgs) (string, error) {
	return "Transfer successful", nil
}

type TransferToHumanAgentsArgs struct {
	// A summary of the user's issue.
	Summary string `json:"summary"`
}

// flightHit is a search result: the flight's fields except dates, then the
// fields of one date record (Python's dict.update).
func flightHit(head, dateRecord string) (*py.Value, error) {
	hit, err := py.Parse(head)
	if err != nil {
		return nil, err
	}
	d, err := py.Parse(dateRecord)
	if err != nil {
		return nil, err
	}
	hit.Update(d)
	return hit, nil
}
