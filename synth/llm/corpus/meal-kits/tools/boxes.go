package tools

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// WeekArgs name a subscriber's week.
type WeekArgs struct {
	// The subscriber id find_subscriber returned.
	SubscriberID string `json:"subscriber_id"`
	// The week's Monday, YYYY-MM-DD.
	WeekStart string `json:"week_start"`
}

// box returns the subscriber's box of a week, refusing one past its cutoff.
func box(subscriberID, week string) (sdk.Row, error) {
	b, err := sdk.QueryRow(`SELECT id, status, cutoff_at FROM boxes WHERE subscriber_id = ? AND week_start = ?`, subscriberID, strings.TrimSpace(week))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("there is no box for the week of %s", week)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if b.String("cutoff_at") <= sdk.Now().UTC().Format(stamp) {
		return sdk.Row{}, fmt.Errorf("the order cutoff for the week of %s has passed", week)
	}
	return b, nil
}

// RecipeArgs name a recipe in a week's box.
type RecipeArgs struct {
	// The subscriber id find_subscriber returned.
	SubscriberID string `json:"subscriber_id"`
	// The week's Monday, YYYY-MM-DD.
	WeekStart string `json:"week_start"`
	// Recipe name such as Veggie Tacos.
	RecipeName string `json:"recipe_name"`
}

func recipeByName(name string) (sdk.Row, error) {
	r, err := sdk.QueryRow(`SELECT id, name FROM recipes WHERE lower(name) = ?`, strings.ToLower(strings.TrimSpace(name)))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no recipe is called %q", name)
	}
	return r, err
}

// AddRecipe adds a recipe to an open box within the plan's recipe count.
func AddRecipe(args RecipeArgs) (map[string]any, error) {
	s, err := subscriber(args.SubscriberID)
	if err != nil {
		return nil, err
	}
	b, err := box(args.SubscriberID, args.WeekStart)
	if err != nil {
		return nil, err
	}
	if b.String("status") != "open" {
		return nil, fmt.Errorf("the box for the week of %s is %s", args.WeekStart, b.String("status"))
	}
	r, err := recipeByName(args.RecipeName)
	if err != nil {
		return nil, err
	}
	n, err := sdk.QueryRow(`SELECT COUNT(*) AS n, SUM(recipe_id = ?) AS dup FROM box_recipes WHERE box_id = ?`, r.String("id"), b.String("id"))
	if err != nil {
		return nil, err
	}
	if n.Int("dup") > 0 {
		return nil, fmt.Errorf("%s is already in that box", r.String("name"))
	}
	if n.Int("n") >= s.Int("recipes_per_week") {
		return nil, fmt.Errorf("the box already has the plan's %d recipes", s.Int("recipes_per_week"))
	}
	if _, err := sdk.Exec(`INSERT INTO box_recipes (box_id, recipe_id) VALUES (?, ?)`, b.String("id"), r.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"week_start": strings.TrimSpace(args.WeekStart), "added": r.String("name"), "recipes_in_box": n.Int("n") + 1, "recipes_allowed": s.Int("recipes_per_week")}, nil
}

// RemoveRecipe removes a recipe from an open box.
func RemoveRecipe(args RecipeArgs) (map[string]any, error) {
	if _, err := subscriber(args.SubscriberID); err != nil {
		return nil, err
	}
	b, err := box(args.SubscriberID, args.WeekStart)
	if err != nil {
		return nil, err
	}
	if b.String("status") != "open" {
		return nil, fmt.Errorf("the box for the week of %s is %s", args.WeekStart, b.String("status"))
	}
	r, err := recipeByName(args.RecipeName)
	if err != nil {
		return nil, err
	}
	res, err := sdk.Exec(`DELETE FROM box_recipes WHERE box_id = ? AND recipe_id = ?`, b.String("id"), r.String("id"))
	if err != nil {
		return nil, err
	}
	if res.RowsAffected == 0 {
		return nil, fmt.Errorf("%s is not in that box", r.String("name"))
	}
	return map[string]any{"week_start": strings.TrimSpace(args.WeekStart), "removed": r.String("name")}, nil
}

// SkipWeek skips an open box before its cutoff.
func SkipWeek(args WeekArgs) (map[string]any, error) {
	if _, err := subscriber(args.SubscriberID); err != nil {
		return nil, err
	}
	b, err := box(args.SubscriberID, args.WeekStart)
	if err != nil {
		return nil, err
	}
	if b.String("status") != "open" {
		return nil, fmt.Errorf("the box for the week of %s is %s", args.WeekStart, b.String("status"))
	}
	if _, err := sdk.Exec(`UPDATE boxes SET status = 'skipped' WHERE id = ?`, b.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"week_start": strings.TrimSpace(args.WeekStart), "status": "skipped"}, nil
}

// UnskipWeek reopens a skipped box before its cutoff.
func UnskipWeek(args WeekArgs) (map[string]any, error) {
	if _, err := subscriber(args.SubscriberID); err != nil {
		return nil, err
	}
	b, err := box(args.SubscriberID, args.WeekStart)
	if err != nil {
		return nil, err
	}
	if b.String("status") != "skipped" {
		return nil, fmt.Errorf("the box for the week of %s is %s, not skipped", args.WeekStart, b.String("status"))
	}
	if _, err := sdk.Exec(`UPDATE boxes SET status = 'open' WHERE id = ?`, b.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"week_start": strings.TrimSpace(args.WeekStart), "status": "open"}, nil
}
