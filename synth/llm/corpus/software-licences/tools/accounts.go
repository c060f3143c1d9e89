package tools

import (
	"fmt"
	"math"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// VerifyCustomerArgs identify a customer.
type VerifyCustomerArgs struct {
	// The account number, such as AC-1001.
	AccountNumber string `json:"account_number"`
	// The account's billing email.
	BillingEmail string `json:"billing_email"`
}

// VerifyCustomer checks an account number against its billing email.
func VerifyCustomer(args VerifyCustomerArgs) (map[string]any, error) {
	c, err := sdk.QueryRow(`SELECT account_number, company, billing_email FROM customers WHERE account_number = ?`, strings.TrimSpace(args.AccountNumber))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no account %q", args.AccountNumber)
	}
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(c.String("billing_email"), strings.TrimSpace(args.BillingEmail)) {
		return nil, fmt.Errorf("the billing email does not match account %s", c.String("account_number"))
	}
	return map[string]any{"account_number": c.String("account_number"), "company": c.String("company"), "verified": true}, nil
}

// ListSubscriptionsArgs name an account.
type ListSubscriptionsArgs struct {
	// The verified account number.
	AccountNumber string `json:"account_number"`
}

// ListSubscriptions lists an account's subscriptions with seats and renewal cost.
func ListSubscriptions(args ListSubscriptionsArgs) (map[string]any, error) {
	if err := accountExists(args.AccountNumber); err != nil {
		return nil, err
	}
	rows, err := sdk.Query(`SELECT s.id, pr.name AS product, p.id AS plan_id, p.name AS plan, s.seats,
		(SELECT COUNT(*) FROM seat_assignments a WHERE a.subscription_id = s.id AND a.status = 'assigned') AS assigned_seats,
		s.renews_on, s.auto_renew, p.price_per_seat_year
		FROM subscriptions s JOIN plans p ON p.id = s.plan_id JOIN products pr ON pr.id = p.product_id
		WHERE s.account_number = ? ORDER BY s.id`, args.AccountNumber)
	if err != nil {
		return nil, err
	}
	var subs []any
	for _, r := range rows.All() {
		seats, assigned := r.Int("seats"), r.Int("assigned_seats")
		subs = append(subs, map[string]any{
			"id": r.String("id"), "product": r.String("product"), "plan_id": r.String("plan_id"), "plan": r.String("plan"),
			"seats": seats, "assigned_seats": assigned, "free_seats": seats - assigned,
			"renews_on": r.String("renews_on"), "auto_renew": r.Bool("auto_renew"),
			"price_per_seat_year": r.Float("price_per_seat_year"),
			"renewal_cost":        cents(float64(seats) * r.Float("price_per_seat_year")),
		})
	}
	return map[string]any{"account_number": args.AccountNumber, "subscriptions": subs}, nil
}

// ListPlansArgs optionally name a product.
type ListPlansArgs struct {
	// The product name, such as DesignSuite.
	Product *string `json:"product,omitempty"`
}

// ListPlans lists plans, of one product or all.
func ListPlans(args ListPlansArgs) (sdk.Rows, error) {
	q := `SELECT p.id AS plan_id, p.name, pr.name AS product, p.price_per_seat_year FROM plans p JOIN products pr ON pr.id = p.product_id`
	if args.Product == nil || strings.TrimSpace(*args.Product) == "" {
		return sdk.Query(q + ` ORDER BY pr.name, p.price_per_seat_year`)
	}
	rows, err := sdk.Query(q+` WHERE lower(pr.name) = lower(?) ORDER BY p.price_per_seat_year`, strings.TrimSpace(*args.Product))
	if err != nil {
		return sdk.Rows{}, err
	}
	if rows.Len() == 0 {
		return sdk.Rows{}, fmt.Errorf("no product named %q", *args.Product)
	}
	return rows, nil
}

func accountExists(account string) error {
	_, err := sdk.QueryRow(`SELECT account_number FROM customers WHERE account_number = ?`, account)
	if err == sdk.ErrNoRows {
		return fmt.Errorf("no account %q", account)
	}
	return err
}

// ownSubscription returns the subscription if the account owns it.
func ownSubscription(account, id string) (sdk.Row, error) {
	if err := accountExists(account); err != nil {
		return sdk.Row{}, err
	}
	s, err := sdk.QueryRow(`SELECT s.id, s.plan_id, s.seats, s.renews_on, s.auto_renew, p.product_id, p.price_per_seat_year
		FROM subscriptions s JOIN plans p ON p.id = s.plan_id WHERE s.id = ? AND s.account_number = ?`, id, account)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("account %s has no subscription %q", account, id)
	}
	return s, err
}

func cents(v float64) float64 { return math.Round(v*100) / 100 }
