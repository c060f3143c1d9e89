package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// ListAppointments lists the upcoming appointments of the owner's pets.
func ListAppointments(args OwnerArgs) (sdk.Rows, error) {
	if err := ownerExists(args.OwnerID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT s.id AS slot_id, p.name AS pet, v.name AS vet, s.starts_at, s.reason FROM slots s JOIN pets p ON p.id = s.pet_id JOIN vets v ON v.id = s.vet_id
		WHERE p.owner_id = ? AND s.starts_at > ? ORDER BY s.starts_at`, args.OwnerID, sdk.Now().UTC().Format(time.RFC3339))
}

// BookAppointmentArgs are the arguments of book_appointment.
type BookAppointmentArgs struct {
	// The owner's id.
	OwnerID string `json:"owner_id"`
	// The pet's id from find_owner.
	PetID string `json:"pet_id"`
	// The slot's id from list_free_slots.
	SlotID string `json:"slot_id"`
	// Why the pet comes, such as check-up.
	Reason string `json:"reason,omitempty"`
}

// BookAppointment books a free slot of a vet who treats the pet's species.
func BookAppointment(args BookAppointmentArgs) (sdk.Row, error) {
	p, err := sdk.QueryRow(`SELECT id, name, species, owner_id FROM pets WHERE id = ?`, strings.TrimSpace(args.PetID))
	if err == sdk.ErrNoRows || (err == nil && p.String("owner_id") != args.OwnerID) {
		return sdk.Row{}, fmt.Errorf("the owner has no pet %s", args.PetID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	s, err := sdk.QueryRow(`SELECT s.id, s.starts_at, COALESCE(s.pet_id, '') AS pet_id, v.name AS vet, v.species FROM slots s JOIN vets v ON v.id = s.vet_id WHERE upper(s.id) = upper(?)`, strings.TrimSpace(args.SlotID))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no slot has the id %s", args.SlotID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	now := sdk.Now().UTC().Format(time.RFC3339)
	switch {
	case s.String("pet_id") != "":
		return sdk.Row{}, fmt.Errorf("slot %s is taken", s.String("id"))
	case s.String("starts_at") <= now:
		return sdk.Row{}, fmt.Errorf("slot %s has already started", s.String("id"))
	}
	treats := false
	for _, sp := range strings.Split(s.String("species"), ",") {
		treats = treats || strings.TrimSpace(sp) == p.String("species")
	}
	if !treats {
		return sdk.Row{}, fmt.Errorf("%s does not treat %ss", s.String("vet"), p.String("species"))
	}
	if _, err := sdk.QueryRow(`SELECT id FROM slots WHERE pet_id = ? AND starts_at = ?`, p.String("id"), s.String("starts_at")); err == nil {
		return sdk.Row{}, fmt.Errorf("%s already has an appointment at %s", p.String("name"), s.String("starts_at"))
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	reason := strings.TrimSpace(args.Reason)
	if reason == "" {
		reason = "appointment"
	}
	if _, err := sdk.Exec(`UPDATE slots SET pet_id = ?, reason = ? WHERE id = ?`, p.String("id"), reason, s.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT s.id, v.name AS vet, s.starts_at, s.pet_id, s.reason FROM slots s JOIN vets v ON v.id = s.vet_id WHERE s.id = ?`, s.String("id"))
}

// CancelAppointmentArgs are the arguments of cancel_appointment.
type CancelAppointmentArgs struct {
	// The owner's id.
	OwnerID string `json:"owner_id"`
	// The appointment's slot id.
	SlotID string `json:"slot_id"`
}

// CancelAppointment frees a slot of one of the owner's pets more than 12 hours ahead.
func CancelAppointment(args CancelAppointmentArgs) (sdk.Row, error) {
	s, err := sdk.QueryRow(`SELECT s.id, s.starts_at, p.owner_id FROM slots s JOIN pets p ON p.id = s.pet_id WHERE upper(s.id) = upper(?)`, strings.TrimSpace(args.SlotID))
	if err == sdk.ErrNoRows || (err == nil && s.String("owner_id") != args.OwnerID) {
		return sdk.Row{}, fmt.Errorf("the owner has no appointment in slot %s", args.SlotID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	starts, err := time.Parse(time.RFC3339, s.String("starts_at"))
	if err != nil {
		return sdk.Row{}, err
	}
	if starts.Sub(sdk.Now()) <= 12*time.Hour {
		return sdk.Row{}, fmt.Errorf("the appointment starts within 12 hours")
	}
	if _, err := sdk.Exec(`UPDATE slots SET pet_id = NULL, reason = NULL WHERE id = ?`, s.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, vet_id, starts_at, pet_id IS NULL AS free FROM slots WHERE id = ?`, s.String("id"))
}
