package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// ListFreeSlotsArgs are the arguments of list_free_slots.
type ListFreeSlotsArgs struct {
	// The lawyer's id.
	LawyerID string `json:"lawyer_id"`
}

// ListFreeSlots lists a lawyer's free upcoming slots.
func ListFreeSlots(args ListFreeSlotsArgs) (sdk.Rows, error) {
	l, err := sdk.QueryRow(`SELECT id FROM lawyers WHERE upper(id) = upper(?)`, strings.TrimSpace(args.LawyerID))
	if err == sdk.ErrNoRows {
		return sdk.Rows{}, fmt.Errorf("no lawyer has the id %s", args.LawyerID)
	} else if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT id, starts_at FROM slots WHERE lawyer_id = ? AND matter_id IS NULL AND starts_at > ? ORDER BY starts_at`, l.String("id"), sdk.Now().UTC().Format(time.RFC3339))
}

// ListConsultations lists the client's upcoming booked consultations.
func ListConsultations(args ClientArgs) (sdk.Rows, error) {
	number, err := clientExists(args.ClientNumber)
	if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT s.id AS slot_id, s.starts_at, l.name AS lawyer, m.title AS matter FROM slots s JOIN lawyers l ON l.id = s.lawyer_id JOIN matters m ON m.id = s.matter_id
		WHERE m.client_number = ? AND s.starts_at > ? ORDER BY s.starts_at`, number, sdk.Now().UTC().Format(time.RFC3339))
}

// BookConsultationArgs are the arguments of book_consultation.
type BookConsultationArgs struct {
	// The verified client number.
	ClientNumber string `json:"client_number"`
	// The matter's id.
	MatterID string `json:"matter_id"`
	// The slot's id from list_free_slots.
	SlotID string `json:"slot_id"`
}

// BookConsultation books a free slot with an unconflicted lawyer of the matter's area.
func BookConsultation(args BookConsultationArgs) (sdk.Row, error) {
	number, err := clientExists(args.ClientNumber)
	if err != nil {
		return sdk.Row{}, err
	}
	s, err := sdk.QueryRow(`SELECT id, lawyer_id, starts_at, COALESCE(matter_id, '') AS matter_id FROM slots WHERE upper(id) = upper(?)`, strings.TrimSpace(args.SlotID))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no slot has the id %s", args.SlotID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	c, l, m, err := conflicted(s.String("lawyer_id"), args.MatterID)
	if err != nil {
		return sdk.Row{}, err
	}
	switch {
	case m.String("client_number") != number:
		return sdk.Row{}, fmt.Errorf("matter %s is not the client's", m.String("id"))
	case s.String("matter_id") != "":
		return sdk.Row{}, fmt.Errorf("slot %s is taken", s.String("id"))
	case s.String("starts_at") <= sdk.Now().UTC().Format(time.RFC3339):
		return sdk.Row{}, fmt.Errorf("slot %s has already started", s.String("id"))
	case l.String("practice_area") != m.String("practice_area"):
		return sdk.Row{}, fmt.Errorf("%s is a %s lawyer and the matter is %s", l.String("name"), l.String("practice_area"), m.String("practice_area"))
	case c:
		return sdk.Row{}, fmt.Errorf("%s has a conflict of interest with %s", l.String("name"), m.String("opposing_party"))
	}
	if _, err := sdk.Exec(`UPDATE slots SET matter_id = ? WHERE id = ?`, m.String("id"), s.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT s.id, s.starts_at, l.name AS lawyer, s.matter_id FROM slots s JOIN lawyers l ON l.id = s.lawyer_id WHERE s.id = ?`, s.String("id"))
}

// CancelConsultationArgs are the arguments of cancel_consultation.
type CancelConsultationArgs struct {
	// The verified client number.
	ClientNumber string `json:"client_number"`
	// The slot's id from list_consultations.
	SlotID string `json:"slot_id"`
}

// CancelConsultation frees the client's consultation more than 24 hours ahead.
func CancelConsultation(args CancelConsultationArgs) (sdk.Row, error) {
	number, err := clientExists(args.ClientNumber)
	if err != nil {
		return sdk.Row{}, err
	}
	s, err := sdk.QueryRow(`SELECT s.id, s.starts_at, m.client_number FROM slots s JOIN matters m ON m.id = s.matter_id WHERE upper(s.id) = upper(?)`, strings.TrimSpace(args.SlotID))
	if err == sdk.ErrNoRows || (err == nil && s.String("client_number") != number) {
		return sdk.Row{}, fmt.Errorf("the client has no consultation in slot %s", args.SlotID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	starts, err := time.Parse(time.RFC3339, s.String("starts_at"))
	if err != nil {
		return sdk.Row{}, err
	}
	if starts.Sub(sdk.Now()) <= 24*time.Hour {
		return sdk.Row{}, fmt.Errorf("the consultation starts within 24 hours and can no longer be cancelled")
	}
	if _, err := sdk.Exec(`UPDATE slots SET matter_id = NULL WHERE id = ?`, s.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, lawyer_id, starts_at, matter_id IS NULL AS free FROM slots WHERE id = ?`, s.String("id"))
}
