package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

type FindPatientArgs struct {
	// The patient's email.
	Email string `json:"email"`
}

// FindPatient looks a patient up by email.
func FindPatient(args FindPatientArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow("SELECT id, name, email FROM patients WHERE LOWER(email) = LOWER(?)", strings.TrimSpace(args.Email))
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no patient with email %q", args.Email)
	}
	return row, err
}

type PatientArgs struct {
	// Patient id.
	PatientID string `json:"patient_id"`
}

type ChildOut struct {
	ID   string `json:"patient_id"`
	Name string `json:"name"`
}

type RecordOut struct {
	PatientID          string     `json:"patient_id"`
	Name               string     `json:"name"`
	Age                int        `json:"age"`
	Diabetes           bool       `json:"diabetes"`
	Referral           bool       `json:"referral"`
	FreeTests          bool       `json:"free_tests"`
	VoucherUpTo        float64    `json:"voucher_up_to"`
	LastCompletedTest  string     `json:"last_completed_test"`
	RoutineTestDueFrom string     `json:"routine_test_due_from"`
	LatestPrescription string     `json:"latest_prescription"`
	GuardianID         string     `json:"guardian_id,omitempty"`
	Children           []ChildOut `json:"children"`
}

// GetPatientRecord returns a patient's record.
func GetPatientRecord(args PatientArgs) (RecordOut, error) {
	p, err := patientRow(args.PatientID)
	if err != nil {
		return RecordOut{}, err
	}
	last, err := lastTest(p.String("id"))
	if err != nil {
		return RecordOut{}, err
	}
	out := RecordOut{PatientID: p.String("id"), Name: p.String("name"), Age: age(p), Diabetes: p.Int("diabetes") == 1,
		Referral: p.Int("referral") == 1, FreeTests: freeTests(p), LastCompletedTest: last, RoutineTestDueFrom: dueDate(last),
		Children: []ChildOut{}}
	if out.FreeTests {
		out.VoucherUpTo = voucherCap
	}
	if len(out.LastCompletedTest) >= 10 {
		out.LastCompletedTest = out.LastCompletedTest[:10]
	}
	if !p.IsNull("guardian_id") {
		out.GuardianID = p.String("guardian_id")
	}
	rx, err := sdk.QueryRow("SELECT id FROM prescriptions WHERE patient_id = ? ORDER BY issued_on DESC LIMIT 1", p.String("id"))
	if err == nil {
		out.LatestPrescription = rx.String("id")
	} else if !errors.Is(err, sdk.ErrNoRows) {
		return RecordOut{}, err
	}
	if err := list(&out.Children, "SELECT json_object('patient_id', id, 'name', name) AS j FROM patients WHERE guardian_id = ? ORDER BY id", p.String("id")); err != nil {
		return RecordOut{}, err
	}
	return out, nil
}

type FindFreeSlotsArgs struct {
	// Branch name (optional: all branches).
	BranchName string `json:"branch_name,omitempty"`
	// YYYY-MM-DD or YYYY-MM-DDTHH:MM (optional: now).
	From string `json:"from,omitempty"`
	// YYYY-MM-DD inclusive (optional).
	ToDate string `json:"to_date,omitempty"`
}

type SlotOut struct {
	SlotID   string `json:"slot_id"`
	Branch   string `json:"branch"`
	StartsAt string `json:"starts_at"`
}

// FindFreeSlots lists free test slots, earliest first.
func FindFreeSlots(args FindFreeSlotsArgs) ([]SlotOut, error) {
	now := sdk.Now().UTC().Format(time.RFC3339)
	from := strings.TrimSpace(args.From) // starts_at >= from; slots already started are left out below
	to := strings.TrimSpace(args.ToDate)
	if to == "" {
		to = "9999-12-31"
	}
	out := []SlotOut{}
	err := list(&out, `SELECT json_object('slot_id', s.id, 'branch', b.name, 'starts_at', s.starts_at) AS j
		FROM slots s JOIN branches b ON b.id = s.branch_id
		WHERE (? = '' OR LOWER(b.name) = LOWER(?)) AND s.starts_at >= ? AND s.starts_at > ? AND substr(s.starts_at, 1, 10) <= ?
		AND NOT EXISTS (SELECT 1 FROM appointments a WHERE a.slot_id = s.id AND a.status IN ('booked','completed'))
		ORDER BY s.starts_at, b.name`, strings.TrimSpace(args.BranchName), strings.TrimSpace(args.BranchName), from, now, to)
	return out, err
}

type BookTestArgs struct {
	// Patient to test.
	PatientID string `json:"patient_id"`
	// The signed-in patient (the same, or the guardian).
	BookedByID string `json:"booked_by_id"`
	// Free slot id.
	SlotID string `json:"slot_id"`
}

// BookTest books an eye test in a free slot.
func BookTest(args BookTestArgs) (map[string]any, error) {
	p, err := patientRow(args.PatientID)
	if err != nil {
		return nil, err
	}
	by := strings.ToUpper(strings.TrimSpace(args.BookedByID))
	if by != strings.ToUpper(p.String("id")) && (p.IsNull("guardian_id") || by != strings.ToUpper(p.String("guardian_id"))) {
		return nil, fmt.Errorf("%s can book only for themselves or a child they are the guardian of", args.BookedByID)
	}
	s, err := slotRow(args.SlotID)
	if err != nil {
		return nil, err
	}
	if err := checkFreeSlot(s, 0); err != nil {
		return nil, err
	}
	last, err := lastTest(p.String("id"))
	if err != nil {
		return nil, err
	}
	kind := "routine"
	if due := dueDate(last); due != "" && s.String("starts_at")[:10] < due {
		if p.Int("referral") != 1 {
			return nil, fmt.Errorf("%s is not due a routine test until %s (last test %s) and has no referral", p.String("name"), due, last[:10])
		}
		kind = "referral"
	}
	price := testPrice
	if freeTests(p) {
		price = 0
	}
	res, err := sdk.Exec("INSERT INTO appointments (patient_id, slot_id, kind, status, price, paid) VALUES (?, ?, ?, 'booked', ?, 0)", p.String("id"), s.String("id"), kind, price)
	if err != nil {
		return nil, err
	}
	return map[string]any{"appointment_id": res.LastInsertID, "patient": p.String("name"), "branch": s.String("branch"), "starts_at": s.String("starts_at"), "kind": kind, "price": price}, nil
}

type AppointmentOut struct {
	AppointmentID int64   `json:"appointment_id"`
	Branch        string  `json:"branch"`
	StartsAt      string  `json:"starts_at"`
	Kind          string  `json:"kind"`
	Status        string  `json:"status"`
	Price         float64 `json:"price"`
	Paid          bool    `json:"paid"`
}

// ListAppointments lists a patient's appointments.
func ListAppointments(args PatientArgs) ([]AppointmentOut, error) {
	p, err := patientRow(args.PatientID)
	if err != nil {
		return nil, err
	}
	out := []AppointmentOut{}
	err = list(&out, `SELECT json_object('appointment_id', a.id, 'branch', b.name, 'starts_at', s.starts_at, 'kind', a.kind, 'status', a.status,
		'price', a.price, 'paid', json(CASE WHEN a.paid = 1 THEN 'true' ELSE 'false' END)) AS j
		FROM appointments a JOIN slots s ON s.id = a.slot_id JOIN branches b ON b.id = s.branch_id WHERE a.patient_id = ? ORDER BY s.starts_at`, p.String("id"))
	return out, err
}

type MoveTestArgs struct {
	// Patient id.
	PatientID string `json:"patient_id"`
	// Appointment id.
	AppointmentID int64 `json:"appointment_id"`
	// New free slot.
	SlotID string `json:"slot_id"`
}

// MoveTest moves a booked test to another free slot.
func MoveTest(args MoveTestArgs) (map[string]any, error) {
	a, err := ownAppointment(args.PatientID, args.AppointmentID)
	if err != nil {
		return nil, err
	}
	if a.String("status") != "booked" {
		return nil, fmt.Errorf("appointment %d is %s", args.AppointmentID, a.String("status"))
	}
	s, err := slotRow(args.SlotID)
	if err != nil {
		return nil, err
	}
	if err := checkFreeSlot(s, args.AppointmentID); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE appointments SET slot_id = ? WHERE id = ?", s.String("id"), args.AppointmentID); err != nil {
		return nil, err
	}
	return map[string]any{"appointment_id": args.AppointmentID, "branch": s.String("branch"), "starts_at": s.String("starts_at")}, nil
}

type CancelTestArgs struct {
	// Patient id.
	PatientID string `json:"patient_id"`
	// Appointment id.
	AppointmentID int64 `json:"appointment_id"`
}

// CancelTest cancels a booked test.
func CancelTest(args CancelTestArgs) (map[string]any, error) {
	a, err := ownAppointment(args.PatientID, args.AppointmentID)
	if err != nil {
		return nil, err
	}
	if a.String("status") != "booked" {
		return nil, fmt.Errorf("appointment %d is %s and cannot be cancelled", args.AppointmentID, a.String("status"))
	}
	if _, err := sdk.Exec("UPDATE appointments SET status = 'cancelled' WHERE id = ?", args.AppointmentID); err != nil {
		return nil, err
	}
	return map[string]any{"appointment_id": args.AppointmentID, "status": "cancelled"}, nil
}
