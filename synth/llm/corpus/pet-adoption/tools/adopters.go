package tools

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// nextID returns the next id PREFIX-N of a table.
func nextID(table, prefix string) (string, error) {
	rows, err := sdk.Query(`SELECT id FROM `+table+` WHERE id LIKE ?`, prefix+"%")
	if err != nil {
		return "", err
	}
	max := 0
	for _, r := range rows.All() {
		if n, err := strconv.Atoi(strings.TrimPrefix(r.String("id"), prefix)); err == nil && n > max {
			max = n
		}
	}
	return fmt.Sprintf("%s%d", prefix, max+1), nil
}

// FindAdopterArgs are the arguments of find_adopter.
type FindAdopterArgs struct {
	// The adopter's email.
	Email string `json:"email"`
}

// FindAdopter finds the signed-in adopter by email.
func FindAdopter(args FindAdopterArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id AS adopter_id, name FROM adopters WHERE lower(email) = ?`, strings.ToLower(strings.TrimSpace(args.Email)))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no adopter has the email %q", args.Email)
	}
	return row, err
}

func adopterExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM adopters WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no adopter has the id %q", id)
	}
	return err
}

func animalByName(name string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, name, species, age_years, fee, status FROM animals WHERE lower(name) = ?`, strings.ToLower(strings.TrimSpace(name)))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no animal is called %q", name)
	}
	return row, err
}

// ListAnimalsArgs filter the animals.
type ListAnimalsArgs struct {
	// dog, cat or rabbit; omit for all.
	Species string `json:"species,omitempty"`
	// true: only animals available for adoption.
	AvailableOnly bool `json:"available_only,omitempty"`
}

// ListAnimals lists the shelter's animals.
func ListAnimals(args ListAnimalsArgs) (sdk.Rows, error) {
	q := `SELECT name, species, age_years, fee, status FROM animals WHERE (? = '' OR species = ?)`
	if args.AvailableOnly {
		q += ` AND status = 'available'`
	}
	sp := strings.ToLower(strings.TrimSpace(args.Species))
	return sdk.Query(q+` ORDER BY species, name`, sp, sp)
}

// AdopterArgs name an adopter.
type AdopterArgs struct {
	// The adopter id find_adopter returned.
	AdopterID string `json:"adopter_id"`
}

// ListMyActivity lists the adopter's visits, holds and applications.
func ListMyActivity(args AdopterArgs) (map[string]any, error) {
	if err := adopterExists(args.AdopterID); err != nil {
		return nil, err
	}
	visits, err := sdk.Query(`SELECT v.id AS visit_id, a.name AS animal, v.visit_at, v.status FROM visits v JOIN animals a ON a.id = v.animal_id WHERE v.adopter_id = ? ORDER BY v.visit_at`, args.AdopterID)
	if err != nil {
		return nil, err
	}
	holds, err := sdk.Query(`SELECT a.name AS animal, h.placed_at, h.expires_at, h.status FROM holds h JOIN animals a ON a.id = h.animal_id WHERE h.adopter_id = ? ORDER BY h.placed_at`, args.AdopterID)
	if err != nil {
		return nil, err
	}
	apps, err := sdk.Query(`SELECT p.id AS application_id, a.name AS animal, p.submitted_at, p.status FROM applications p JOIN animals a ON a.id = p.animal_id WHERE p.adopter_id = ? ORDER BY p.submitted_at`, args.AdopterID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"visits": visits, "holds": holds, "applications": apps}, nil
}

// ApplicationArgs name an animal to apply for.
type ApplicationArgs struct {
	// The adopter id find_adopter returned.
	AdopterID string `json:"adopter_id"`
	// The animal's name.
	AnimalName string `json:"animal_name"`
}

// SubmitApplication submits an adoption application for an animal the adopter has met.
func SubmitApplication(args ApplicationArgs) (map[string]any, error) {
	if err := adopterExists(args.AdopterID); err != nil {
		return nil, err
	}
	a, err := animalByName(args.AnimalName)
	if err != nil {
		return nil, err
	}
	if a.String("status") == "adopted" {
		return nil, fmt.Errorf("%s has already been adopted", a.String("name"))
	}
	if _, err := sdk.QueryRow(`SELECT id FROM visits WHERE adopter_id = ? AND animal_id = ? AND status = 'completed'`, args.AdopterID, a.String("id")); err == sdk.ErrNoRows {
		return nil, fmt.Errorf("an application needs a completed visit with %s first", a.String("name"))
	} else if err != nil {
		return nil, err
	}
	if _, err := sdk.QueryRow(`SELECT id FROM applications WHERE adopter_id = ? AND animal_id = ? AND status IN ('submitted','approved')`, args.AdopterID, a.String("id")); err == nil {
		return nil, fmt.Errorf("this adopter already has an application for %s", a.String("name"))
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	id, err := nextID("applications", "APP-")
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO applications (id, adopter_id, animal_id, submitted_at, status) VALUES (?, ?, ?, ?, 'submitted')`,
		id, args.AdopterID, a.String("id"), sdk.Now().UTC().Format("2006-01-02T15:04:05Z")); err != nil {
		return nil, err
	}
	return map[string]any{"application_id": id, "animal": a.String("name"), "status": "submitted"}, nil
}

// WithdrawArgs name an application.
type WithdrawArgs struct {
	// The adopter id find_adopter returned.
	AdopterID string `json:"adopter_id"`
	// Application id such as APP-901.
	ApplicationID string `json:"application_id"`
}

// WithdrawApplication withdraws a submitted application.
func WithdrawApplication(args WithdrawArgs) (map[string]any, error) {
	if err := adopterExists(args.AdopterID); err != nil {
		return nil, err
	}
	p, err := sdk.QueryRow(`SELECT id, status FROM applications WHERE id = ? AND adopter_id = ?`, strings.ToUpper(strings.TrimSpace(args.ApplicationID)), args.AdopterID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("application %q is not one of this adopter's applications", args.ApplicationID)
	}
	if err != nil {
		return nil, err
	}
	if p.String("status") != "submitted" {
		return nil, fmt.Errorf("application %s is %s and cannot be withdrawn", p.String("id"), p.String("status"))
	}
	if _, err := sdk.Exec(`UPDATE applications SET status = 'withdrawn' WHERE id = ?`, p.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"application_id": p.String("id"), "status": "withdrawn"}, nil
}
