package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// FindOwnerArgs are the arguments of find_owner.
type FindOwnerArgs struct {
	// The owner's email address.
	Email string `json:"email"`
}

// FindOwner finds an owner by email, with their pets.
func FindOwner(args FindOwnerArgs) (map[string]any, error) {
	o, err := sdk.QueryRow(`SELECT id, name FROM owners WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no owner has the email %s", args.Email)
	} else if err != nil {
		return nil, err
	}
	pets, err := sdk.Query(`SELECT id, name, species FROM pets WHERE owner_id = ? ORDER BY name`, o.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"id": o.String("id"), "name": o.String("name"), "pets": pets}, nil
}

func ownerExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM owners WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no owner has the id %s", id)
	}
	return err
}

// OwnerArgs name an owner.
type OwnerArgs struct {
	// The owner's id from find_owner.
	OwnerID string `json:"owner_id"`
}

// ListPrescriptions lists the prescriptions of the owner's pets.
func ListPrescriptions(args OwnerArgs) (sdk.Rows, error) {
	if err := ownerExists(args.OwnerID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT r.id, p.name AS pet, r.medication, r.refills_left, r.last_filled FROM prescriptions r JOIN pets p ON p.id = r.pet_id WHERE p.owner_id = ? ORDER BY r.id`, args.OwnerID)
}

// RefillPrescriptionArgs are the arguments of refill_prescription.
type RefillPrescriptionArgs struct {
	// The owner's id.
	OwnerID string `json:"owner_id"`
	// The prescription's id from list_prescriptions.
	PrescriptionID int `json:"prescription_id"`
}

// RefillPrescription uses one refill of a prescription.
func RefillPrescription(args RefillPrescriptionArgs) (sdk.Row, error) {
	r, err := sdk.QueryRow(`SELECT r.id, r.refills_left, r.medication, p.owner_id FROM prescriptions r JOIN pets p ON p.id = r.pet_id WHERE r.id = ?`, args.PrescriptionID)
	if err == sdk.ErrNoRows || (err == nil && r.String("owner_id") != args.OwnerID) {
		return sdk.Row{}, fmt.Errorf("the owner has no prescription %d", args.PrescriptionID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if r.Int("refills_left") < 1 {
		return sdk.Row{}, fmt.Errorf("%s has no refills left", r.String("medication"))
	}
	if _, err := sdk.Exec(`UPDATE prescriptions SET refills_left = refills_left - 1, last_filled = ? WHERE id = ?`, sdk.Now().UTC().Format("2006-01-02"), args.PrescriptionID); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT r.id, p.name AS pet, r.medication, r.refills_left, r.last_filled FROM prescriptions r JOIN pets p ON p.id = r.pet_id WHERE r.id = ?`, args.PrescriptionID)
}

// ListVets lists the vets and the species they treat.
func ListVets() (sdk.Rows, error) {
	return sdk.Query(`SELECT id, name, species FROM vets ORDER BY name`)
}

// ListFreeSlotsArgs are the arguments of list_free_slots.
type ListFreeSlotsArgs struct {
	// The vet's id from list_vets.
	VetID string `json:"vet_id"`
	// Only this date, YYYY-MM-DD.
	Date string `json:"date,omitempty"`
}

// ListFreeSlots lists a vet's free upcoming slots.
func ListFreeSlots(args ListFreeSlotsArgs) (sdk.Rows, error) {
	v, err := sdk.QueryRow(`SELECT id FROM vets WHERE upper(id) = upper(?)`, strings.TrimSpace(args.VetID))
	if err == sdk.ErrNoRows {
		return sdk.Rows{}, fmt.Errorf("no vet has the id %s", args.VetID)
	} else if err != nil {
		return sdk.Rows{}, err
	}
	date := strings.TrimSpace(args.Date)
	return sdk.Query(`SELECT id, starts_at FROM slots WHERE vet_id = ? AND pet_id IS NULL AND starts_at > ? AND (? = '' OR substr(starts_at, 1, 10) = ?) ORDER BY starts_at`,
		v.String("id"), sdk.Now().UTC().Format(time.RFC3339), date, date)
}
