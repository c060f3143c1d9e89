package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

const (
	vasePrice       = 12.0
	deliveryFee     = 6.0
	freeDeliveryMin = 50.0
	sameDayCutoff   = 12
)

// fee is the delivery fee for a bouquet price and vase.
func fee(price float64, vase int64) float64 {
	if price+float64(vase)*vasePrice > freeDeliveryMin {
		return 0
	}
	return deliveryFee
}

// checkDate fails for a past date, or today from 12:00.
func checkDate(s string) (string, error) {
	d, err := time.Parse("2006-01-02", strings.TrimSpace(s))
	if err != nil {
		return "", fmt.Errorf("date %q is not in YYYY-MM-DD form", s)
	}
	now := sdk.Now().UTC()
	day, today := d.Format("2006-01-02"), now.Format("2006-01-02")
	if day < today || (day == today && now.Hour() >= sameDayCutoff) {
		return "", fmt.Errorf("delivery on %s is no longer possible (same-day orders only before 12:00)", day)
	}
	return day, nil
}

func getBouquet(id string) (sdk.Row, error) {
	b, err := sdk.QueryRow("SELECT id, name, price, band, in_stock FROM bouquets WHERE id = ?", strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return b, fmt.Errorf("no bouquet %q", id)
	}
	return b, err
}

func getOrder(id string) (sdk.Row, error) {
	o, err := sdk.QueryRow("SELECT o.id, o.customer_id, o.bouquet_id, b.name AS bouquet, b.band, o.delivery_date, o.address, o.status, o.card_message, o.vase, o.price, o.delivery_fee, o.price + o.vase * 12.0 + o.delivery_fee AS total FROM orders o JOIN bouquets b ON b.id = o.bouquet_id WHERE o.id = ?", strings.ToUpper(strings.TrimSpace(id)))
	if errors.Is(err, sdk.ErrNoRows) {
		return o, fmt.Errorf("no order %q", id)
	}
	return o, err
}

// placed returns an order still placed (not prepared, delivered or cancelled).
func placed(id string) (sdk.Row, error) {
	o, err := getOrder(id)
	if err == nil && o.String("status") != "placed" {
		err = fmt.Errorf("order %s is %s and can no longer be changed", o.String("id"), o.String("status"))
	}
	return o, err
}

// GetCustomerArgs are the arguments of get_customer.
type GetCustomerArgs struct {
	// the customer's email
	Email string `json:"email"`
}

// GetCustomer finds the signed-in customer by email: customer id and name.
func GetCustomer(args GetCustomerArgs) (sdk.Row, error) {
	c, err := sdk.QueryRow("SELECT id AS customer_id, name FROM customers WHERE lower(email) = lower(?)", strings.TrimSpace(args.Email))
	if errors.Is(err, sdk.ErrNoRows) {
		return c, fmt.Errorf("no customer with email %q", args.Email)
	}
	return c, err
}

// ListBouquets lists the bouquets: id, name, price, price band and whether in stock.
func ListBouquets() (sdk.Rows, error) {
	return sdk.Query("SELECT id, name, price, band, in_stock FROM bouquets ORDER BY price")
}

// CustomerArgs name a customer.
type CustomerArgs struct {
	// customer id
	CustomerID string `json:"customer_id"`
}

// ListOrders lists a customer's orders: id, bouquet, delivery date, address,
// status, card message, vase, price, delivery fee and total.
func ListOrders(args CustomerArgs) (sdk.Rows, error) {
	if _, err := sdk.QueryRow("SELECT id FROM customers WHERE id = ?", args.CustomerID); errors.Is(err, sdk.ErrNoRows) {
		return sdk.Rows{}, fmt.Errorf("no customer with id %q", args.CustomerID)
	} else if err != nil {
		return sdk.Rows{}, err
	}
	return sdk.Query("SELECT o.id, b.name AS bouquet, o.delivery_date, o.address, o.status, o.card_message, o.vase, o.price, o.delivery_fee, o.price + o.vase * 12.0 + o.delivery_fee AS total FROM orders o JOIN bouquets b ON b.id = o.bouquet_id WHERE o.customer_id = ? ORDER BY o.delivery_date", args.CustomerID)
}

// PlaceOrderArgs are the arguments of place_order.
type PlaceOrderArgs struct {
	// customer id
	CustomerID string `json:"customer_id"`
	// bouquet id
	BouquetID string `json:"bouquet_id"`
	// YYYY-MM-DD
	DeliveryDate string `json:"delivery_date"`
	// delivery address
	Address string `json:"address"`
	// add a vase
	Vase bool `json:"vase,omitempty"`
	// card message
	CardMessage string `json:"card_message,omitempty"`
}

// PlaceOrder orders a bouquet in stock for delivery, with an optional vase
// and card message. It fails when the bouquet is out of stock or the date is
// past (today only before 12:00).
func PlaceOrder(args PlaceOrderArgs) (sdk.Row, error) {
	if _, err := sdk.QueryRow("SELECT id FROM customers WHERE id = ?", args.CustomerID); errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no customer with id %q", args.CustomerID)
	} else if err != nil {
		return sdk.Row{}, err
	}
	b, err := getBouquet(args.BouquetID)
	if err != nil {
		return sdk.Row{}, err
	}
	if b.Int("in_stock") == 0 {
		return sdk.Row{}, fmt.Errorf("%s are out of stock", b.String("name"))
	}
	day, err := checkDate(args.DeliveryDate)
	if err != nil {
		return sdk.Row{}, err
	}
	addr := strings.TrimSpace(args.Address)
	if addr == "" {
		return sdk.Row{}, errors.New("a delivery address is needed")
	}
	var vase int64
	if args.Vase {
		vase = 1
	}
	next, err := sdk.QueryRow("SELECT COALESCE(MAX(CAST(substr(id, 4) AS INTEGER)), 0) + 1 AS n FROM orders WHERE id LIKE 'FO-%'")
	if err != nil {
		return sdk.Row{}, err
	}
	id := fmt.Sprintf("FO-%02d", next.Int("n"))
	if _, err := sdk.Exec("INSERT INTO orders (id, customer_id, bouquet_id, delivery_date, address, status, card_message, vase, price, delivery_fee, created_at) VALUES (?, ?, ?, ?, ?, 'placed', ?, ?, ?, ?, ?)",
		id, args.CustomerID, b.String("id"), day, addr, strings.TrimSpace(args.CardMessage), vase, b.Float("price"), fee(b.Float("price"), vase), sdk.Now().UTC().Format("2006-01-02T15:04:05Z")); err != nil {
		return sdk.Row{}, err
	}
	return getOrder(id)
}

// ChangeDeliveryArgs are the arguments of change_delivery.
type ChangeDeliveryArgs struct {
	// order id
	OrderID string `json:"order_id"`
	// new date (empty: unchanged)
	DeliveryDate string `json:"delivery_date,omitempty"`
	// new address (empty: unchanged)
	Address string `json:"address,omitempty"`
}

// ChangeDelivery changes a placed order's delivery date and/or address.
func ChangeDelivery(args ChangeDeliveryArgs) (sdk.Row, error) {
	o, err := placed(args.OrderID)
	if err != nil {
		return sdk.Row{}, err
	}
	day, addr := o.String("delivery_date"), o.String("address")
	if strings.TrimSpace(args.DeliveryDate) != "" {
		if day, err = checkDate(args.DeliveryDate); err != nil {
			return sdk.Row{}, err
		}
	}
	if a := strings.TrimSpace(args.Address); a != "" {
		addr = a
	}
	if _, err := sdk.Exec("UPDATE orders SET delivery_date = ?, address = ? WHERE id = ?", day, addr, o.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getOrder(o.String("id"))
}

// OrderArgs name an order.
type OrderArgs struct {
	// order id
	OrderID string `json:"order_id"`
}

// AddVase adds a vase (12.00) to a placed order and recomputes its delivery
// fee. It fails when it already has one.
func AddVase(args OrderArgs) (sdk.Row, error) {
	o, err := placed(args.OrderID)
	if err != nil {
		return sdk.Row{}, err
	}
	if o.Int("vase") == 1 {
		return sdk.Row{}, fmt.Errorf("order %s already has a vase", o.String("id"))
	}
	if _, err := sdk.Exec("UPDATE orders SET vase = 1, delivery_fee = ? WHERE id = ?", fee(o.Float("price"), 1), o.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getOrder(o.String("id"))
}

// SetCardMessageArgs are the arguments of set_card_message.
type SetCardMessageArgs struct {
	// order id
	OrderID string `json:"order_id"`
	// the message
	Message string `json:"message"`
}

// SetCardMessage sets a placed order's card message.
func SetCardMessage(args SetCardMessageArgs) (sdk.Row, error) {
	o, err := placed(args.OrderID)
	if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE orders SET card_message = ? WHERE id = ?", strings.TrimSpace(args.Message), o.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getOrder(o.String("id"))
}

// SubstituteArgs are the arguments of substitute_bouquet.
type SubstituteArgs struct {
	// order id
	OrderID string `json:"order_id"`
	// the new bouquet id
	BouquetID string `json:"bouquet_id"`
}

// SubstituteBouquet swaps a placed order's bouquet for one in stock of the
// same price band, repricing it.
func SubstituteBouquet(args SubstituteArgs) (sdk.Row, error) {
	o, err := placed(args.OrderID)
	if err != nil {
		return sdk.Row{}, err
	}
	b, err := getBouquet(args.BouquetID)
	if err != nil {
		return sdk.Row{}, err
	}
	if b.Int("in_stock") == 0 {
		return sdk.Row{}, fmt.Errorf("%s are out of stock", b.String("name"))
	}
	if b.String("band") != o.String("band") {
		return sdk.Row{}, fmt.Errorf("%s are in the %s band, not %s", b.String("name"), b.String("band"), o.String("band"))
	}
	if _, err := sdk.Exec("UPDATE orders SET bouquet_id = ?, price = ?, delivery_fee = ? WHERE id = ?", b.String("id"), b.Float("price"), fee(b.Float("price"), o.Int("vase")), o.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getOrder(o.String("id"))
}

// CancelOrder cancels a placed order. It fails once it is prepared.
func CancelOrder(args OrderArgs) (sdk.Row, error) {
	o, err := placed(args.OrderID)
	if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec("UPDATE orders SET status = 'cancelled' WHERE id = ?", o.String("id")); err != nil {
		return sdk.Row{}, err
	}
	return getOrder(o.String("id"))
}
