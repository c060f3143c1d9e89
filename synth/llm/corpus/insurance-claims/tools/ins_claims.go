package tools

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/wasmenv/wasmenv/sdk"
)

// plate normalises a registration ("AB12 CDE" → "AB12CDE").
func plate(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// FindPolicyholderArgs are the arguments of find_policyholder.
type FindPolicyholderArgs struct {
	// The policyholder's email address.
	Email string `json:"email"`
}

// FindPolicyholder finds a policyholder by email.
func FindPolicyholder(args FindPolicyholderArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, name, email FROM policyholders WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no policyholder has the email %s", args.Email)
	}
	return row, err
}

func holderExists(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM policyholders WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no policyholder has the id %s", id)
	}
	return err
}

// HolderArgs name a policyholder.
type HolderArgs struct {
	// The policyholder's id from find_policyholder.
	HolderID string `json:"holder_id"`
}

// ListPolicies lists the policyholder's policies, one row per covered vehicle.
func ListPolicies(args HolderArgs) (sdk.Rows, error) {
	if err := holderExists(args.HolderID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT p.number, p.status, p.cover_start, p.cover_end, p.deductible, v.registration, v.make_model
		FROM policies p JOIN vehicles v ON v.policy_number = p.number WHERE p.holder_id = ? ORDER BY p.number, v.registration`, args.HolderID)
}

// ListClaims lists the policyholder's claims.
func ListClaims(args HolderArgs) (sdk.Rows, error) {
	if err := holderExists(args.HolderID); err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query(`SELECT c.id, c.policy_number, c.registration, v.make_model, c.incident_date, c.description, c.status, c.filed_at
		FROM claims c JOIN policies p ON p.number = c.policy_number JOIN vehicles v ON v.registration = c.registration
		WHERE p.holder_id = ? ORDER BY c.filed_at`, args.HolderID)
}

// ClaimArgs name a policyholder's claim.
type ClaimArgs struct {
	// The policyholder's id.
	HolderID string `json:"holder_id"`
	// The claim's id, such as CL-9001.
	ClaimID string `json:"claim_id"`
}

func ownClaim(holderID, claimID string) (sdk.Row, error) {
	if err := holderExists(holderID); err != nil {
		return sdk.Row{}, err
	}
	c, err := sdk.QueryRow(`SELECT c.id, c.policy_number, c.registration, c.incident_date, c.description, c.status, c.filed_at, COALESCE(c.closed_at, '') AS closed_at, p.holder_id
		FROM claims c JOIN policies p ON p.number = c.policy_number WHERE upper(c.id) = upper(?)`, strings.TrimSpace(claimID))
	if err == sdk.ErrNoRows || (err == nil && c.String("holder_id") != holderID) {
		return sdk.Row{}, fmt.Errorf("the policyholder has no claim %s", claimID)
	}
	return c, err
}

// GetClaim returns one of the policyholder's claims with its photos and notes.
func GetClaim(args ClaimArgs) (map[string]any, error) {
	c, err := ownClaim(args.HolderID, args.ClaimID)
	if err != nil {
		return nil, err
	}
	att, err := sdk.Query(`SELECT kind, content, added_at FROM claim_attachments WHERE claim_id = ? ORDER BY id`, c.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"id": c.String("id"), "policy_number": c.String("policy_number"), "registration": c.String("registration"),
		"incident_date": c.String("incident_date"), "description": c.String("description"), "status": c.String("status"),
		"filed_at": c.String("filed_at"), "closed_at": c.String("closed_at"), "attachments": att}, nil
}

// FileClaimArgs are the arguments of file_claim.
type FileClaimArgs struct {
	// The policyholder's id.
	HolderID string `json:"holder_id"`
	// The vehicle's registration, spaces allowed, such as AB12 CDE.
	Registration string `json:"registration"`
	// The incident date, YYYY-MM-DD.
	IncidentDate string `json:"incident_date"`
	// What happened, as the policyholder says it.
	Description string `json:"description"`
}

// FileClaim files an open claim for a vehicle on an active policy covering the date.
func FileClaim(args FileClaimArgs) (sdk.Row, error) {
	if err := holderExists(args.HolderID); err != nil {
		return sdk.Row{}, err
	}
	v, err := sdk.QueryRow(`SELECT v.registration, v.make_model, p.number, p.status, p.cover_start, p.cover_end FROM vehicles v JOIN policies p ON p.number = v.policy_number
		WHERE v.registration = ? AND p.holder_id = ?`, plate(args.Registration), args.HolderID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the vehicle %s is not on any of the policyholder's policies", args.Registration)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if v.String("status") != "active" {
		return sdk.Row{}, fmt.Errorf("policy %s covering %s is %s", v.String("number"), v.String("make_model"), v.String("status"))
	}
	day, err := time.Parse("2006-01-02", strings.TrimSpace(args.IncidentDate))
	if err != nil {
		return sdk.Row{}, fmt.Errorf("incident date %q: want YYYY-MM-DD", args.IncidentDate)
	}
	date := day.Format("2006-01-02")
	if date > sdk.Now().UTC().Format("2006-01-02") {
		return sdk.Row{}, fmt.Errorf("the incident date %s is in the future", date)
	}
	if date < v.String("cover_start") || date > v.String("cover_end") {
		return sdk.Row{}, fmt.Errorf("%s is outside the cover of policy %s (%s to %s)", date, v.String("number"), v.String("cover_start"), v.String("cover_end"))
	}
	desc := strings.TrimSpace(args.Description)
	if desc == "" {
		return sdk.Row{}, fmt.Errorf("a claim needs a description")
	}
	if _, err := sdk.QueryRow(`SELECT id FROM claims WHERE registration = ? AND incident_date = ? AND status = 'open'`, v.String("registration"), date); err == nil {
		return sdk.Row{}, fmt.Errorf("an open claim for %s on %s already exists", v.String("make_model"), date)
	} else if err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	last, err := sdk.QueryRow(`SELECT COALESCE(max(CAST(substr(id, 4) AS INTEGER)), 9000) AS n FROM claims`)
	if err != nil {
		return sdk.Row{}, err
	}
	id := "CL-" + strconv.FormatInt(last.Int("n")+1, 10)
	if _, err := sdk.Exec(`INSERT INTO claims (id, policy_number, registration, incident_date, description, status, filed_at) VALUES (?, ?, ?, ?, ?, 'open', ?)`,
		id, v.String("number"), v.String("registration"), date, desc, sdk.Now().UTC().Format(time.RFC3339)); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, policy_number, registration, incident_date, description, status, filed_at FROM claims WHERE id = ?`, id)
}

// AddAttachmentArgs are the arguments of add_attachment.
type AddAttachmentArgs struct {
	// The policyholder's id.
	HolderID string `json:"holder_id"`
	// The claim's id.
	ClaimID string `json:"claim_id"`
	// photo or note.
	Kind string `json:"kind"`
	// The photo's file name or the note's text.
	Content string `json:"content"`
}

// AddAttachment adds a photo or a note to an open claim.
func AddAttachment(args AddAttachmentArgs) (sdk.Row, error) {
	c, err := ownClaim(args.HolderID, args.ClaimID)
	if err != nil {
		return sdk.Row{}, err
	}
	if c.String("status") != "open" {
		return sdk.Row{}, fmt.Errorf("claim %s is %s: only open claims take photos and notes", c.String("id"), c.String("status"))
	}
	kind := strings.ToLower(strings.TrimSpace(args.Kind))
	if kind != "photo" && kind != "note" {
		return sdk.Row{}, fmt.Errorf("the kind must be photo or note, not %q", args.Kind)
	}
	content := strings.TrimSpace(args.Content)
	if content == "" {
		return sdk.Row{}, fmt.Errorf("the %s is empty", kind)
	}
	res, err := sdk.Exec(`INSERT INTO claim_attachments (claim_id, kind, content, added_at) VALUES (?, ?, ?, ?)`, c.String("id"), kind, content, sdk.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, claim_id, kind, content, added_at FROM claim_attachments WHERE id = ?`, res.LastInsertID)
}

// WithdrawClaim withdraws an open claim.
func WithdrawClaim(args ClaimArgs) (sdk.Row, error) {
	c, err := ownClaim(args.HolderID, args.ClaimID)
	if err != nil {
		return sdk.Row{}, err
	}
	if c.String("status") != "open" {
		return sdk.Row{}, fmt.Errorf("claim %s is %s: only open claims can be withdrawn", c.String("id"), c.String("status"))
	}
	if _, err := sdk.Exec(`UPDATE claims SET status = 'withdrawn', closed_at = ? WHERE id = ?`, sdk.Now().UTC().Format(time.RFC3339), c.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, policy_number, registration, incident_date, description, status, closed_at FROM claims WHERE id = ?`, c.String("id"))
}
