package tools

import (
	"fmt"
	"math"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// VerifyClientArgs are the arguments of verify_client.
type VerifyClientArgs struct {
	// The client number, such as CL-201.
	ClientNumber string `json:"client_number"`
	// The client's surname.
	Surname string `json:"surname"`
}

// VerifyClient verifies a client by number and surname and lists their matters.
func VerifyClient(args VerifyClientArgs) (map[string]any, error) {
	c, err := sdk.QueryRow(`SELECT number, first_name, surname FROM clients WHERE upper(number) = upper(?)`, strings.TrimSpace(args.ClientNumber))
	if err == sdk.ErrNoRows || (err == nil && !strings.EqualFold(c.String("surname"), strings.TrimSpace(args.Surname))) {
		return nil, fmt.Errorf("the client number and surname do not match a client")
	} else if err != nil {
		return nil, err
	}
	matters, err := sdk.Query(`SELECT id, practice_area, title, opposing_party FROM matters WHERE client_number = ? ORDER BY id`, c.String("number"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"number": c.String("number"), "first_name": c.String("first_name"), "surname": c.String("surname"), "matters": matters}, nil
}

func clientExists(number string) (string, error) {
	c, err := sdk.QueryRow(`SELECT number FROM clients WHERE upper(number) = upper(?)`, strings.TrimSpace(number))
	if err == sdk.ErrNoRows {
		return "", fmt.Errorf("no client has the number %s", number)
	}
	if err != nil {
		return "", err
	}
	return c.String("number"), nil
}

// ListLawyersArgs are the arguments of list_lawyers.
type ListLawyersArgs struct {
	// family, employment or property.
	PracticeArea string `json:"practice_area"`
}

// ListLawyers lists the lawyers of a practice area.
func ListLawyers(args ListLawyersArgs) (sdk.Rows, error) {
	area := strings.ToLower(strings.TrimSpace(args.PracticeArea))
	if area != "family" && area != "employment" && area != "property" {
		return sdk.Rows{}, fmt.Errorf("the practice area must be family, employment or property, not %q", args.PracticeArea)
	}
	return sdk.Query(`SELECT id, name FROM lawyers WHERE practice_area = ? ORDER BY name`, area)
}

// CheckConflictArgs are the arguments of check_conflict.
type CheckConflictArgs struct {
	// The lawyer's id from list_lawyers.
	LawyerID string `json:"lawyer_id"`
	// The matter's id from verify_client.
	MatterID string `json:"matter_id"`
}

// conflicted reports whether the lawyer has acted for the matter's opposing party.
func conflicted(lawyerID, matterID string) (bool, sdk.Row, sdk.Row, error) {
	l, err := sdk.QueryRow(`SELECT id, name, practice_area FROM lawyers WHERE upper(id) = upper(?)`, strings.TrimSpace(lawyerID))
	if err == sdk.ErrNoRows {
		return false, sdk.Row{}, sdk.Row{}, fmt.Errorf("no lawyer has the id %s", lawyerID)
	} else if err != nil {
		return false, sdk.Row{}, sdk.Row{}, err
	}
	m, err := sdk.QueryRow(`SELECT id, client_number, practice_area, title, opposing_party FROM matters WHERE upper(id) = upper(?)`, strings.TrimSpace(matterID))
	if err == sdk.ErrNoRows {
		return false, sdk.Row{}, sdk.Row{}, fmt.Errorf("no matter has the id %s", matterID)
	} else if err != nil {
		return false, sdk.Row{}, sdk.Row{}, err
	}
	_, err = sdk.QueryRow(`SELECT id FROM conflicts WHERE lawyer_id = ? AND lower(party_name) = lower(?)`, l.String("id"), m.String("opposing_party"))
	if err == sdk.ErrNoRows {
		return false, l, m, nil
	}
	return err == nil, l, m, err
}

// CheckConflict says whether a lawyer has a conflict of interest with a matter.
func CheckConflict(args CheckConflictArgs) (map[string]any, error) {
	c, l, m, err := conflicted(args.LawyerID, args.MatterID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"lawyer": l.String("name"), "matter": m.String("title"), "conflict": c}, nil
}

// ClientArgs name a client.
type ClientArgs struct {
	// The verified client number.
	ClientNumber string `json:"client_number"`
}

// GetInvoiceBalance returns the client's invoices and outstanding balance.
func GetInvoiceBalance(args ClientArgs) (map[string]any, error) {
	number, err := clientExists(args.ClientNumber)
	if err != nil {
		return nil, err
	}
	inv, err := sdk.Query(`SELECT id, amount, paid, issued_on FROM invoices WHERE client_number = ? ORDER BY issued_on`, number)
	if err != nil {
		return nil, err
	}
	balance := 0.0
	for _, r := range inv.All() {
		balance += r.Float("amount") - r.Float("paid")
	}
	return map[string]any{"invoices": inv, "balance": math.Round(balance*100) / 100}, nil
}
