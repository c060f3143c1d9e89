package tools

import (
	"fmt"

	"github.com/wasmenv/wasmenv/sdk"
)

// ChangePlanArgs name a subscription and its new plan.
type ChangePlanArgs struct {
	// The verified account number.
	AccountNumber string `json:"account_number"`
	// The subscription's id.
	SubscriptionID string `json:"subscription_id"`
	// The new plan's id.
	PlanID string `json:"plan_id"`
}

// ChangePlan moves a subscription to another plan of the same product.
func ChangePlan(args ChangePlanArgs) (map[string]any, error) {
	s, err := ownSubscription(args.AccountNumber, args.SubscriptionID)
	if err != nil {
		return nil, err
	}
	p, err := sdk.QueryRow(`SELECT id, name, product_id FROM plans WHERE id = ?`, args.PlanID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no plan %q", args.PlanID)
	}
	if err != nil {
		return nil, err
	}
	if p.String("id") == s.String("plan_id") {
		return nil, fmt.Errorf("subscription %s is already on plan %s", s.String("id"), p.String("name"))
	}
	if p.String("product_id") != s.String("product_id") {
		return nil, fmt.Errorf("plan %s belongs to another product than subscription %s", p.String("name"), s.String("id"))
	}
	if _, err := sdk.Exec(`UPDATE subscriptions SET plan_id = ? WHERE id = ?`, p.String("id"), s.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"subscription_id": s.String("id"), "plan_id": p.String("id"), "plan": p.String("name"), "seats": s.Int("seats"), "renews_on": s.String("renews_on")}, nil
}

// SetAutoRenewArgs name a subscription and the auto-renewal setting.
type SetAutoRenewArgs struct {
	// The verified account number.
	AccountNumber string `json:"account_number"`
	// The subscription's id.
	SubscriptionID string `json:"subscription_id"`
	// true to renew automatically, false not to.
	AutoRenew bool `json:"auto_renew"`
}

// SetAutoRenew turns a subscription's auto-renewal on or off.
func SetAutoRenew(args SetAutoRenewArgs) (map[string]any, error) {
	s, err := ownSubscription(args.AccountNumber, args.SubscriptionID)
	if err != nil {
		return nil, err
	}
	v := 0
	if args.AutoRenew {
		v = 1
	}
	if _, err := sdk.Exec(`UPDATE subscriptions SET auto_renew = ? WHERE id = ?`, v, s.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"subscription_id": s.String("id"), "auto_renew": args.AutoRenew, "renews_on": s.String("renews_on")}, nil
}
