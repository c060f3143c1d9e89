package tools

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// PlaceOrderArgs are the arguments of place_order.
type PlaceOrderArgs struct {
	// The customer's id from find_customer.
	CustomerID string `json:"customer_id"`
	// The restaurant's id.
	RestaurantID string `json:"restaurant_id"`
	// The dishes' ids from get_menu.
	DishIDs []string `json:"dish_ids"`
	// How many of each dish, in the same order.
	Quantities []int `json:"quantities"`
	// A promo code to apply.
	PromoCode string `json:"promo_code,omitempty"`
}

// PlaceOrder places an order at an open restaurant.
func PlaceOrder(args PlaceOrderArgs) (sdk.Row, error) {
	if err := customerExists(args.CustomerID); err != nil {
		return sdk.Row{}, err
	}
	r, err := sdk.QueryRow(`SELECT id, name, is_open, min_order, delivery_fee FROM restaurants WHERE id = ?`, args.RestaurantID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no restaurant has the id %s", args.RestaurantID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	if r.Int("is_open") != 1 {
		return sdk.Row{}, fmt.Errorf("%s is closed", r.String("name"))
	}
	if len(args.DishIDs) == 0 || len(args.DishIDs) != len(args.Quantities) {
		return sdk.Row{}, errors.New("give one quantity for each dish, and at least one dish")
	}
	subtotal := 0.0
	prices := make([]float64, len(args.DishIDs))
	for i, id := range args.DishIDs {
		if args.Quantities[i] < 1 {
			return sdk.Row{}, fmt.Errorf("the quantity of %s must be at least 1", id)
		}
		d, err := sdk.QueryRow(`SELECT name, price, available FROM dishes WHERE id = ? AND restaurant_id = ?`, id, args.RestaurantID)
		if err == sdk.ErrNoRows {
			return sdk.Row{}, fmt.Errorf("%s has no dish %s", r.String("name"), id)
		} else if err != nil {
			return sdk.Row{}, err
		}
		if d.Int("available") != 1 {
			return sdk.Row{}, fmt.Errorf("%s is not available", d.String("name"))
		}
		prices[i] = d.Float("price")
		subtotal += d.Float("price") * float64(args.Quantities[i])
	}
	subtotal = round2(subtotal)
	if subtotal < r.Float("min_order")-1e-9 {
		return sdk.Row{}, fmt.Errorf("the subtotal %.2f is under %s's minimum order of %.2f", subtotal, r.String("name"), r.Float("min_order"))
	}
	discount := 0.0
	var promo any
	if code := strings.ToUpper(strings.TrimSpace(args.PromoCode)); code != "" {
		p, err := sdk.QueryRow(`SELECT code, amount_off, min_subtotal, active FROM promo_codes WHERE code = ?`, code)
		if err == sdk.ErrNoRows {
			return sdk.Row{}, fmt.Errorf("no promo code %s", code)
		} else if err != nil {
			return sdk.Row{}, err
		}
		if p.Int("active") != 1 {
			return sdk.Row{}, fmt.Errorf("promo code %s is no longer active", code)
		}
		if subtotal < p.Float("min_subtotal")-1e-9 {
			return sdk.Row{}, fmt.Errorf("promo code %s needs a subtotal of %.2f", code, p.Float("min_subtotal"))
		}
		discount, promo = p.Float("amount_off"), code
	}
	total := round2(subtotal + r.Float("delivery_fee") - discount)
	res, err := sdk.Exec(`INSERT INTO orders (customer_id, restaurant_id, status, subtotal, delivery_fee, discount, total, promo_code, rating, placed_at)
		VALUES (?, ?, 'placed', ?, ?, ?, ?, ?, NULL, ?)`, args.CustomerID, args.RestaurantID, subtotal, r.Float("delivery_fee"), discount, total, promo, sdk.Now().Format(time.RFC3339))
	if err != nil {
		return sdk.Row{}, err
	}
	for i, id := range args.DishIDs {
		if _, err := sdk.Exec(`INSERT INTO order_items (order_id, dish_id, quantity, unit_price) VALUES (?, ?, ?, ?)`, res.LastInsertID, id, args.Quantities[i], prices[i]); err != nil {
			return sdk.Row{}, err
		}
	}
	return orderView(res.LastInsertID)
}

func orderView(id int64) (sdk.Row, error) {
	return sdk.QueryRow(`SELECT o.id AS order_id, r.name AS restaurant, o.status, o.subtotal, o.delivery_fee, o.discount, o.total, coalesce(o.promo_code, '') AS promo_code, o.rating, o.placed_at
		FROM orders o JOIN restaurants r ON r.id = o.restaurant_id WHERE o.id = ?`, id)
}

func ownOrder(customer string, id int64) (sdk.Row, error) {
	o, err := sdk.QueryRow(`SELECT id, status, rating FROM orders WHERE id = ? AND customer_id = ?`, id, customer)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the customer has no order %d", id)
	}
	return o, err
}

// CancelOrderArgs are the arguments of cancel_order.
type CancelOrderArgs struct {
	// The customer's id from find_customer.
	CustomerID string `json:"customer_id"`
	// The order's id from list_orders.
	OrderID int64 `json:"order_id"`
}

// CancelOrder cancels an order the restaurant has not accepted.
func CancelOrder(args CancelOrderArgs) (sdk.Row, error) {
	o, err := ownOrder(args.CustomerID, args.OrderID)
	if err != nil {
		return sdk.Row{}, err
	}
	if o.String("status") != "placed" {
		return sdk.Row{}, fmt.Errorf("order %d is %s and can no longer be cancelled", args.OrderID, o.String("status"))
	}
	if _, err := sdk.Exec(`UPDATE orders SET status = 'cancelled' WHERE id = ?`, args.OrderID); err != nil {
		return sdk.Row{}, err
	}
	return orderView(args.OrderID)
}

// RateOrderArgs are the arguments of rate_order.
type RateOrderArgs struct {
	// The customer's id from find_customer.
	CustomerID string `json:"customer_id"`
	// The order's id from list_orders.
	OrderID int64 `json:"order_id"`
	// 1 to 5.
	Stars int `json:"stars"`
}

// RateOrder rates a delivered order once.
func RateOrder(args RateOrderArgs) (sdk.Row, error) {
	o, err := ownOrder(args.CustomerID, args.OrderID)
	if err != nil {
		return sdk.Row{}, err
	}
	if o.String("status") != "delivered" {
		return sdk.Row{}, fmt.Errorf("order %d is %s, not delivered", args.OrderID, o.String("status"))
	}
	if !o.IsNull("rating") {
		return sdk.Row{}, fmt.Errorf("order %d is already rated", args.OrderID)
	}
	if args.Stars < 1 || args.Stars > 5 {
		return sdk.Row{}, errors.New("the rating must be 1 to 5 stars")
	}
	if _, err := sdk.Exec(`UPDATE orders SET rating = ? WHERE id = ?`, args.Stars, args.OrderID); err != nil {
		return sdk.Row{}, err
	}
	return orderView(args.OrderID)
}
