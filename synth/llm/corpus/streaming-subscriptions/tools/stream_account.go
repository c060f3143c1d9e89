package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// FindSubscriberArgs are the arguments of find_subscriber.
type FindSubscriberArgs struct {
	// The subscriber's email address.
	Email string `json:"email"`
}

// FindSubscriber finds a subscriber by email.
func FindSubscriber(args FindSubscriberArgs) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, name, email, plan_code, status, paused_until, store_credit, renews_on FROM subscribers WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no subscriber has the email %s", args.Email)
	}
	return row, err
}

func subscriber(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, name, email, plan_code, status, paused_until, store_credit, renews_on FROM subscribers WHERE id = ?`, strings.TrimSpace(id))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no subscriber has the id %s", id)
	}
	return row, err
}

// ListPlans lists the plans.
func ListPlans() (sdk.Rows, error) {
	return sdk.Query(`SELECT code, name, monthly_price, max_screens, max_profiles, resolution FROM plans ORDER BY monthly_price`)
}

// ChangePlanArgs are the arguments of change_plan.
type ChangePlanArgs struct {
	// The subscriber's id from find_subscriber.
	SubscriberID string `json:"subscriber_id"`
	// basic, standard or premium.
	PlanCode string `json:"plan_code"`
}

// ChangePlan moves an active subscription to another plan whose profile limit the account fits.
func ChangePlan(args ChangePlanArgs) (sdk.Row, error) {
	s, err := subscriber(args.SubscriberID)
	if err != nil {
		return sdk.Row{}, err
	}
	if s.String("status") != "active" {
		return sdk.Row{}, fmt.Errorf("the subscription is %s: only an active subscription can change plan", s.String("status"))
	}
	p, err := sdk.QueryRow(`SELECT code, name, max_profiles FROM plans WHERE code = lower(?)`, strings.TrimSpace(args.PlanCode))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no plan has the code %s", args.PlanCode)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if p.String("code") == s.String("plan_code") {
		return sdk.Row{}, fmt.Errorf("the subscription is already on the %s plan", p.String("name"))
	}
	n, err := sdk.QueryRow(`SELECT count(*) AS n FROM profiles WHERE subscriber_id = ?`, s.String("id"))
	if err != nil {
		return sdk.Row{}, err
	}
	if n.Int("n") > p.Int("max_profiles") {
		return sdk.Row{}, fmt.Errorf("the account has %d profiles and the %s plan allows %d: delete a profile first", n.Int("n"), p.String("name"), p.Int("max_profiles"))
	}
	if _, err := sdk.Exec(`UPDATE subscribers SET plan_code = ? WHERE id = ?`, p.String("code"), s.String("id")); err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`INSERT INTO plan_changes (subscriber_id, from_plan, to_plan, changed_at) VALUES (?, ?, ?, ?)`,
		s.String("id"), s.String("plan_code"), p.String("code"), sdk.Now().UTC().Format(time.RFC3339)); err != nil {
		return sdk.Row{}, err
	}
	return subscriber(s.String("id"))
}

// SubscriberArgs name a subscriber.
type SubscriberArgs struct {
	// The subscriber's id.
	SubscriberID string `json:"subscriber_id"`
}

// PauseSubscriptionArgs are the arguments of pause_subscription.
type PauseSubscriptionArgs struct {
	// The subscriber's id.
	SubscriberID string `json:"subscriber_id"`
	// The date the pause ends, YYYY-MM-DD.
	Until string `json:"until"`
}

// PauseSubscription pauses an active subscription until a date at most 90 days ahead.
func PauseSubscription(args PauseSubscriptionArgs) (sdk.Row, error) {
	s, err := subscriber(args.SubscriberID)
	if err != nil {
		return sdk.Row{}, err
	}
	if s.String("status") != "active" {
		return sdk.Row{}, fmt.Errorf("the subscription is %s: only an active subscription can be paused", s.String("status"))
	}
	until, err := time.Parse("2006-01-02", strings.TrimSpace(args.Until))
	if err != nil {
		return sdk.Row{}, fmt.Errorf("until %q: want a date YYYY-MM-DD", args.Until)
	}
	today := sdk.Now().UTC().Truncate(24 * time.Hour)
	if !until.After(today) || until.Sub(today) > 90*24*time.Hour {
		return sdk.Row{}, fmt.Errorf("a pause must end after today and at most 90 days ahead")
	}
	if _, err := sdk.Exec(`UPDATE subscribers SET status = 'paused', paused_until = ? WHERE id = ?`, until.Format("2006-01-02"), s.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return subscriber(s.String("id"))
}

// ResumeSubscription resumes a paused subscription.
func ResumeSubscription(args SubscriberArgs) (sdk.Row, error) {
	s, err := subscriber(args.SubscriberID)
	if err != nil {
		return sdk.Row{}, err
	}
	if s.String("status") != "paused" {
		return sdk.Row{}, fmt.Errorf("the subscription is %s, not paused", s.String("status"))
	}
	if _, err := sdk.Exec(`UPDATE subscribers SET status = 'active', paused_until = NULL WHERE id = ?`, s.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return subscriber(s.String("id"))
}

// CancelSubscription cancels a subscription.
func CancelSubscription(args SubscriberArgs) (sdk.Row, error) {
	s, err := subscriber(args.SubscriberID)
	if err != nil {
		return sdk.Row{}, err
	}
	if s.String("status") == "cancelled" {
		return sdk.Row{}, fmt.Errorf("the subscription is already cancelled")
	}
	if _, err := sdk.Exec(`UPDATE subscribers SET status = 'cancelled', paused_until = NULL WHERE id = ?`, s.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return subscriber(s.String("id"))
}

// SearchFilmsArgs are the arguments of search_films.
type SearchFilmsArgs struct {
	// Part of the title.
	Query string `json:"query"`
}

// SearchFilms lists films whose title contains the text.
func SearchFilms(args SearchFilmsArgs) (sdk.Rows, error) {
	return sdk.Query(`SELECT id, title, year, rental_price, available = 1 AS available FROM films WHERE lower(title) LIKE '%' || lower(?) || '%' ORDER BY title`, strings.TrimSpace(args.Query))
}

// RentFilmArgs are the arguments of rent_film.
type RentFilmArgs struct {
	// The subscriber's id.
	SubscriberID string `json:"subscriber_id"`
	// The film's id from search_films.
	FilmID string `json:"film_id"`
}

// RentFilm rents a film for 48 hours, paid from the store credit.
func RentFilm(args RentFilmArgs) (map[string]any, error) {
	s, err := subscriber(args.SubscriberID)
	if err != nil {
		return nil, err
	}
	if s.String("status") != "active" {
		return nil, fmt.Errorf("the subscription is %s: films can be rented only on an active subscription", s.String("status"))
	}
	f, err := sdk.QueryRow(`SELECT id, title, rental_price, available FROM films WHERE id = ?`, strings.TrimSpace(args.FilmID))
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("no film has the id %s", args.FilmID)
	} else if err != nil {
		return nil, err
	}
	if f.Int("available") != 1 {
		return nil, fmt.Errorf("%s is not available to rent", f.String("title"))
	}
	now := sdk.Now().UTC()
	if _, err := sdk.QueryRow(`SELECT id FROM rentals WHERE subscriber_id = ? AND film_id = ? AND expires_at > ?`, s.String("id"), f.String("id"), now.Format(time.RFC3339)); err == nil {
		return nil, fmt.Errorf("%s is already rented and the rental has not expired", f.String("title"))
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	price := f.Float("rental_price")
	if s.Float("store_credit")+1e-9 < price {
		return nil, fmt.Errorf("the store credit %.2f does not cover the price %.2f", s.Float("store_credit"), price)
	}
	left := round2(s.Float("store_credit") - price)
	if _, err := sdk.Exec(`UPDATE subscribers SET store_credit = ? WHERE id = ?`, left, s.String("id")); err != nil {
		return nil, err
	}
	res, err := sdk.Exec(`INSERT INTO rentals (subscriber_id, film_id, price, rented_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
		s.String("id"), f.String("id"), price, now.Format(time.RFC3339), now.Add(48*time.Hour).Format(time.RFC3339))
	if err != nil {
		return nil, err
	}
	rental, err := sdk.QueryRow(`SELECT id, film_id, price, rented_at, expires_at FROM rentals WHERE id = ?`, res.LastInsertID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"rental": rental, "title": f.String("title"), "store_credit_left": left}, nil
}
