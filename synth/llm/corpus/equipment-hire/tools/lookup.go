package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

type FindCustomerArgs struct {
	// Customer email.
	Email string `json:"email"`
}

// FindCustomer looks a customer up by email.
func FindCustomer(args FindCustomerArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow("SELECT id, name, email, trade_account FROM customers WHERE LOWER(email) = LOWER(?)", strings.TrimSpace(args.Email))
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no customer with email %q", args.Email)
	}
	return row, err
}

type SearchItemsArgs struct {
	// Text to match, e.g. 'breaker' or 'ladder'.
	Query string `json:"query"`
}

// SearchItems lists hire items whose name or category contains the text.
func SearchItems(args SearchItemsArgs) (sdk.Rows, error) {
	q := "%" + strings.ToLower(strings.TrimSpace(args.Query)) + "%"
	return sdk.Query(`SELECT i.id, i.name, i.category, i.day_rate, i.weekly_rate, i.deposit,
		(SELECT COUNT(*) FROM units u WHERE u.item_id = i.id AND u.status = 'in_service') AS units_in_service
		FROM items i WHERE LOWER(i.name) LIKE ? OR LOWER(i.category) LIKE ? ORDER BY i.day_rate, i.id`, q, q)
}

type CheckAvailabilityArgs struct {
	// Item id.
	ItemID string `json:"item_id"`
	// YYYY-MM-DD.
	StartDate string `json:"start_date"`
	// YYYY-MM-DD (inclusive).
	EndDate string `json:"end_date"`
}

type UnitAvail struct {
	UnitID string   `json:"unit_id"`
	Free   bool     `json:"free_whole_range"`
	Hired  []string `json:"hired"`
}

type AvailabilityOut struct {
	ItemID    string      `json:"item_id"`
	Item      string      `json:"item"`
	StartDate string      `json:"start_date"`
	EndDate   string      `json:"end_date"`
	FreeUnits []string    `json:"free_units"`
	Units     []UnitAvail `json:"units"`
}

// CheckAvailability lists an item's units free on every day of a range.
func CheckAvailability(args CheckAvailabilityArgs) (AvailabilityOut, error) {
	var none AvailabilityOut
	item, err := itemRow(args.ItemID)
	if err != nil {
		return none, err
	}
	start, end, err := rangeOf(args.StartDate, args.EndDate)
	if err != nil {
		return none, err
	}
	units, err := unitsOf(item.String("id"))
	if err != nil {
		return none, err
	}
	free := []string{}
	all := []UnitAvail{}
	for _, u := range units {
		c, err := clashes(u, start, end, 0)
		if err != nil {
			return none, err
		}
		ua := UnitAvail{UnitID: u, Free: len(c) == 0, Hired: []string{}}
		for _, h := range c {
			ua.Hired = append(ua.Hired, fmt.Sprintf("%s to %s (%s)", h.StartDate, h.EndDate, h.Status))
		}
		if ua.Free {
			free = append(free, ua.UnitID)
		}
		all = append(all, ua)
	}
	return AvailabilityOut{ItemID: item.String("id"), Item: item.String("name"), StartDate: args.StartDate, EndDate: args.EndDate,
		FreeUnits: free, Units: all}, nil
}

type QuoteHireArgs struct {
	// Customer id.
	CustomerID string `json:"customer_id"`
	// Item id.
	ItemID string `json:"item_id"`
	// YYYY-MM-DD.
	StartDate string `json:"start_date"`
	// YYYY-MM-DD (inclusive).
	EndDate string `json:"end_date"`
}

// QuoteHire prices a hire without booking it.
func QuoteHire(args QuoteHireArgs) (map[string]any, error) {
	c, err := customerRow(args.CustomerID)
	if err != nil {
		return nil, err
	}
	item, err := itemRow(args.ItemID)
	if err != nil {
		return nil, err
	}
	start, end, err := rangeOf(args.StartDate, args.EndDate)
	if err != nil {
		return nil, err
	}
	n := days(start, end)
	charge := withTrade(hireCharge(n, item.Float("day_rate"), item.Float("weekly_rate")), c.Int("trade_account") == 1)
	return map[string]any{"item": item.String("name"), "days": n, "hire_charge": charge, "deposit": item.Float("deposit"),
		"trade_discount": c.Int("trade_account") == 1}, nil
}

type ListHiresArgs struct {
	// Customer id.
	CustomerID string `json:"customer_id"`
}

// ListHires lists the customer's hires.
func ListHires(args ListHiresArgs) ([]map[string]any, error) {
	if _, err := customerRow(args.CustomerID); err != nil {
		return nil, err
	}
	out := []map[string]any{}
	if err := list(&out, `SELECT json_object('hire_id', h.id, 'item', i.name, 'unit_id', h.unit_id, 'start_date', h.start_date, 'end_date', h.end_date,
		'status', h.status, 'hire_charge', h.hire_charge, 'deposit', h.deposit, 'returned_on', h.returned_on, 'late_days', h.late_days,
		'late_charge', h.late_charge, 'damage_charge', h.damage_charge, 'deposit_refunded', h.deposit_refunded, 'cancel_charge', h.cancel_charge,
		'accessories', json((SELECT json_group_array(json_object('name', a.name, 'quantity', ha.quantity, 'unit_price', ha.unit_price))
			FROM hire_accessories ha JOIN accessories a ON a.id = ha.accessory_id WHERE ha.hire_id = h.id))) AS j
		FROM hires h JOIN units u ON u.id = h.unit_id JOIN items i ON i.id = u.item_id WHERE h.customer_id = ? ORDER BY h.start_date, h.id`,
		strings.TrimSpace(args.CustomerID)); err != nil {
		return nil, err
	}
	return out, nil
}

// ListAccessories lists accessories.
func ListAccessories() (sdk.Rows, error) {
	return sdk.Query("SELECT id, name, price FROM accessories ORDER BY id")
}
