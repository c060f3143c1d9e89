package tools

import (
	"fmt"
	"math"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

const stamp = "2006-01-02T15:04:05Z"

// FindSubscriberArgs are the arguments of find_subscriber.
type FindSubscriberArgs struct {
	// The subscriber's email.
	Email string `json:"email"`
}

// FindSubscriber finds the signed-in subscriber by email, with their plan.
func FindSubscriber(args FindSubscriberArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT s.id AS subscriber_id, s.name, p.recipes_per_week, p.people, p.weekly_price, s.status, s.paused_until, s.promo_code
		FROM subscribers s JOIN plans p ON p.id = s.plan_id WHERE lower(s.email) = ?`, strings.ToLower(strings.TrimSpace(args.Email)))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no subscriber has the email %q", args.Email)
	}
	return row, err
}

// subscriber is a subscriber with their plan and promo percentage.
func subscriber(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT s.id, s.plan_id, s.status, p.recipes_per_week, p.weekly_price, COALESCE(pr.percent_off, 0) AS percent_off
		FROM subscribers s JOIN plans p ON p.id = s.plan_id LEFT JOIN promos pr ON pr.code = s.promo_code WHERE s.id = ?`, id)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no subscriber has the id %q", id)
	}
	return row, err
}

// SubscriberArgs name a subscriber.
type SubscriberArgs struct {
	// The subscriber id find_subscriber returned.
	SubscriberID string `json:"subscriber_id"`
}

// ListBoxes lists the subscriber's boxes with their recipes and cost.
func ListBoxes(args SubscriberArgs) ([]map[string]any, error) {
	s, err := subscriber(args.SubscriberID)
	if err != nil {
		return nil, err
	}
	boxes, err := sdk.Query(`SELECT b.id, b.week_start, b.cutoff_at, b.status, COALESCE(group_concat(r.name, ', '), '') AS recipes, COALESCE(SUM(r.surcharge), 0) AS surcharges
		FROM boxes b LEFT JOIN box_recipes x ON x.box_id = b.id LEFT JOIN recipes r ON r.id = x.recipe_id WHERE b.subscriber_id = ? GROUP BY b.id ORDER BY b.week_start`, args.SubscriberID)
	if err != nil {
		return nil, err
	}
	out := []map[string]any{}
	for _, b := range boxes.All() {
		cost := 0.0
		if b.String("status") != "skipped" {
			cost = math.Round((s.Float("weekly_price")+b.Float("surcharges"))*(100-s.Float("percent_off"))) / 100
		}
		out = append(out, map[string]any{"week_start": b.String("week_start"), "cutoff_at": b.String("cutoff_at"), "status": b.String("status"), "recipes": b.String("recipes"), "cost": cost})
	}
	return out, nil
}

// ListRecipes lists the recipes with their surcharges.
func ListRecipes() (sdk.Rows, error) {
	return sdk.Query(`SELECT name, surcharge FROM recipes ORDER BY name`)
}

// ChangePlanArgs are the arguments of change_plan.
type ChangePlanArgs struct {
	// The subscriber id find_subscriber returned.
	SubscriberID string `json:"subscriber_id"`
	// Recipes per week, 2 to 4.
	RecipesPerWeek int `json:"recipes_per_week"`
	// People per recipe, 2 or 4.
	People int `json:"people"`
}

// ChangePlan moves the subscriber to another plan.
func ChangePlan(args ChangePlanArgs) (map[string]any, error) {
	s, err := subscriber(args.SubscriberID)
	if err != nil {
		return nil, err
	}
	p, err := sdk.QueryRow(`SELECT id, weekly_price FROM plans WHERE recipes_per_week = ? AND people = ?`, args.RecipesPerWeek, args.People)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("there is no plan of %d recipes for %d people", args.RecipesPerWeek, args.People)
	}
	if err != nil {
		return nil, err
	}
	if p.String("id") == s.String("plan_id") {
		return nil, fmt.Errorf("that is already the subscriber's plan")
	}
	if _, err := sdk.Exec(`UPDATE subscribers SET plan_id = ? WHERE id = ?`, p.String("id"), args.SubscriberID); err != nil {
		return nil, err
	}
	return map[string]any{"recipes_per_week": args.RecipesPerWeek, "people": args.People, "weekly_price": p.Float("weekly_price")}, nil
}

// PauseArgs are the arguments of pause_subscription.
type PauseArgs struct {
	// The subscriber id find_subscriber returned.
	SubscriberID string `json:"subscriber_id"`
	// Date YYYY-MM-DD deliveries resume.
	Until string `json:"until"`
}

// PauseSubscription pauses deliveries until a date.
func PauseSubscription(args PauseArgs) (map[string]any, error) {
	s, err := subscriber(args.SubscriberID)
	if err != nil {
		return nil, err
	}
	until := strings.TrimSpace(args.Until)
	if len(until) != 10 || until <= sdk.Now().UTC().Format("2006-01-02") {
		return nil, fmt.Errorf("the date must be YYYY-MM-DD and in the future")
	}
	if s.String("status") == "paused" {
		return nil, fmt.Errorf("the subscription is already paused")
	}
	if _, err := sdk.Exec(`UPDATE subscribers SET status = 'paused', paused_until = ? WHERE id = ?`, until, args.SubscriberID); err != nil {
		return nil, err
	}
	return map[string]any{"status": "paused", "paused_until": until}, nil
}

// PromoArgs are the arguments of apply_promo.
type PromoArgs struct {
	// The subscriber id find_subscriber returned.
	SubscriberID string `json:"subscriber_id"`
	// Promo code such as SUMMER10.
	Code string `json:"code"`
}

// ApplyPromo applies an active promo code, once per subscriber.
func ApplyPromo(args PromoArgs) (map[string]any, error) {
	if _, err := subscriber(args.SubscriberID); err != nil {
		return nil, err
	}
	code := strings.ToUpper(strings.TrimSpace(args.Code))
	p, err := sdk.QueryRow(`SELECT code, percent_off, active FROM promos WHERE code = ?`, code)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no promo code %q", args.Code)
	}
	if err != nil {
		return nil, err
	}
	if p.Int("active") == 0 {
		return nil, fmt.Errorf("promo code %s is no longer active", code)
	}
	if _, err := sdk.QueryRow(`SELECT id FROM promo_redemptions WHERE subscriber_id = ? AND code = ?`, args.SubscriberID, code); err == nil {
		return nil, fmt.Errorf("this subscriber has already used %s", code)
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO promo_redemptions (subscriber_id, code, redeemed_at) VALUES (?, ?, ?)`, args.SubscriberID, code, sdk.Now().UTC().Format(stamp)); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE subscribers SET promo_code = ? WHERE id = ?`, code, args.SubscriberID); err != nil {
		return nil, err
	}
	return map[string]any{"promo_code": code, "percent_off": p.Int("percent_off")}, nil
}
