package tools

import (
	"errors"
	"fmt"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// TicketArgs name one of a fan's tickets.
type TicketArgs struct {
	// fan id
	FanID string `json:"fan_id"`
	// ticket id
	TicketID string `json:"ticket_id"`
}

// UpgradeToWeekend upgrades a day ticket to a weekend pass for the difference.
func UpgradeToWeekend(args TicketArgs) (map[string]any, error) {
	t, err := fanTicket(args.FanID, args.TicketID)
	if err != nil {
		return nil, err
	}
	if t.String("status") != "valid" || t.String("kind") != "day_ticket" || !isWeekendDay(t.String("day")) {
		return nil, fmt.Errorf("ticket %s is not a valid Friday, Saturday or Sunday day ticket", args.TicketID)
	}
	w, err := sdk.QueryRow("SELECT id, price, stock FROM products WHERE kind = 'weekend_pass'")
	if err != nil {
		return nil, err
	}
	if w.Int("stock") < 1 {
		return nil, errors.New("weekend passes are sold out")
	}
	for _, d := range []string{"2024-06-14", "2024-06-15", "2024-06-16"} {
		if d == t.String("day") {
			continue
		}
		n, err := ticketsForDay(args.FanID, d)
		if err != nil {
			return nil, err
		}
		if n >= maxPerDay {
			return nil, fmt.Errorf("the fan already holds %d tickets for %s", n, d)
		}
	}
	diff := w.Float("price") - t.Float("price_paid")
	if _, err := sdk.Exec("UPDATE tickets SET product_id = ?, price_paid = ? WHERE id = ?", w.String("id"), w.Float("price"), args.TicketID); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE products SET stock = stock - 1 WHERE id = ?", w.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE products SET stock = stock + 1 WHERE id = ?", t.String("product_id")); err != nil {
		return nil, err
	}
	if err := charge(args.FanID, args.TicketID, "upgrade", diff); err != nil {
		return nil, err
	}
	return map[string]any{"ticket_id": args.TicketID, "upgraded_to": "weekend pass", "charged": diff}, nil
}

// ChangeTicketNameArgs are change_ticket_name's arguments.
type ChangeTicketNameArgs struct {
	// fan id
	FanID string `json:"fan_id"`
	// ticket id
	TicketID string `json:"ticket_id"`
	// new holder's full name
	NewName string `json:"new_name"`
}

// ChangeTicketName changes the holder of a ticket, at most twice.
func ChangeTicketName(args ChangeTicketNameArgs) (map[string]any, error) {
	t, err := fanTicket(args.FanID, args.TicketID)
	if err != nil {
		return nil, err
	}
	if t.String("status") != "valid" {
		return nil, fmt.Errorf("ticket %s is %s", args.TicketID, t.String("status"))
	}
	if t.Int("name_changes") >= maxNameChanges {
		return nil, fmt.Errorf("ticket %s already had %d name changes, the most allowed", args.TicketID, maxNameChanges)
	}
	start, _ := time.Parse("2006-01-02", festivalStart)
	fee := 0.0
	if !sdk.Now().UTC().Before(start.AddDate(0, 0, -14)) {
		fee = nameChangeFee
	}
	if _, err := sdk.Exec("UPDATE tickets SET holder_name = ?, name_changes = name_changes + 1 WHERE id = ?", args.NewName, args.TicketID); err != nil {
		return nil, err
	}
	if err := charge(args.FanID, args.TicketID, "name_change", fee); err != nil {
		return nil, err
	}
	return map[string]any{"ticket_id": args.TicketID, "holder_name": args.NewName, "fee": fee, "name_changes": t.Int("name_changes") + 1}, nil
}

// AddAddonArgs are add_addon's arguments.
type AddAddonArgs struct {
	// fan id
	FanID string `json:"fan_id"`
	// ticket id
	TicketID string `json:"ticket_id"`
	// add-on id such as ad-camp
	AddonID string `json:"addon_id"`
}

// AddAddon adds camping, parking or a locker to a qualifying ticket.
func AddAddon(args AddAddonArgs) (map[string]any, error) {
	t, err := fanTicket(args.FanID, args.TicketID)
	if err != nil {
		return nil, err
	}
	if t.String("status") != "valid" {
		return nil, fmt.Errorf("ticket %s is %s", args.TicketID, t.String("status"))
	}
	a, err := sdk.QueryRow("SELECT a.id, a.kind, COALESCE(a.day, '') AS day, a.price, a.stock, COALESCE(d.status, 'on') AS day_status FROM addons a LEFT JOIN festival_days d ON d.day = a.day WHERE a.id = ?", args.AddonID)
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no add-on %q", args.AddonID)
	}
	if err != nil {
		return nil, err
	}
	weekend := t.String("kind") == "weekend_pass"
	switch d := a.String("day"); {
	case d == "":
		if !weekend {
			return nil, fmt.Errorf("%s for the weekend needs a weekend pass", a.String("kind"))
		}
	case a.String("day_status") == "cancelled":
		return nil, fmt.Errorf("%s is cancelled", d)
	case !(t.String("day") == d || (weekend && isWeekendDay(d))):
		return nil, fmt.Errorf("ticket %s is not valid on %s", args.TicketID, d)
	}
	if a.Int("stock") < 1 {
		return nil, fmt.Errorf("%s is sold out", args.AddonID)
	}
	dup, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM ticket_addons WHERE ticket_id = ? AND addon_id = ?", args.TicketID, args.AddonID)
	if err != nil {
		return nil, err
	}
	if dup.Int("n") > 0 {
		return nil, fmt.Errorf("ticket %s already has %s", args.TicketID, args.AddonID)
	}
	if _, err := sdk.Exec("INSERT INTO ticket_addons (ticket_id, addon_id, added_at) VALUES (?, ?, ?)", args.TicketID, args.AddonID, stamp()); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE addons SET stock = stock - 1 WHERE id = ?", args.AddonID); err != nil {
		return nil, err
	}
	if err := charge(args.FanID, args.TicketID, "addon", a.Float("price")); err != nil {
		return nil, err
	}
	return map[string]any{"ticket_id": args.TicketID, "addon": args.AddonID, "charged": a.Float("price")}, nil
}

// RefundOrderArgs are refund_order's arguments.
type RefundOrderArgs struct {
	// fan id
	FanID string `json:"fan_id"`
	// order id
	OrderID string `json:"order_id"`
}

// RefundOrder refunds every valid ticket of an order bought in the last 14 days.
func RefundOrder(args RefundOrderArgs) (map[string]any, error) {
	o, err := sdk.QueryRow("SELECT id, fan_id, purchased_at, status FROM orders WHERE id = ?", args.OrderID)
	if errors.Is(err, sdk.ErrNoRows) || (err == nil && o.String("fan_id") != args.FanID) {
		return nil, fmt.Errorf("no order %q of this fan", args.OrderID)
	}
	if err != nil {
		return nil, err
	}
	bought, err := time.Parse(time.RFC3339, o.String("purchased_at"))
	if err != nil {
		return nil, err
	}
	if sdk.Now().UTC().Sub(bought) > 14*24*time.Hour {
		return nil, fmt.Errorf("order %s was bought on %s, more than 14 days ago", args.OrderID, o.String("purchased_at")[:10])
	}
	sum, err := sdk.QueryRow("SELECT COUNT(*) AS n, COALESCE(SUM(price_paid), 0) AS total FROM tickets WHERE order_id = ? AND status = 'valid'", args.OrderID)
	if err != nil {
		return nil, err
	}
	if sum.Int("n") == 0 {
		return nil, fmt.Errorf("order %s has no valid ticket to refund", args.OrderID)
	}
	if _, err := sdk.Exec("UPDATE products SET stock = stock + (SELECT COUNT(*) FROM tickets t WHERE t.order_id = ? AND t.status = 'valid' AND t.product_id = products.id)", args.OrderID); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE tickets SET status = 'refunded' WHERE order_id = ? AND status = 'valid'", args.OrderID); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE orders SET status = 'refunded' WHERE id = ?", args.OrderID); err != nil {
		return nil, err
	}
	if err := charge(args.FanID, "", "refund", -sum.Float("total")); err != nil {
		return nil, err
	}
	return map[string]any{"order_id": args.OrderID, "tickets_refunded": sum.Int("n"), "refunded": sum.Float("total")}, nil
}

// RefundTicket refunds a day ticket for a cancelled day.
func RefundTicket(args TicketArgs) (map[string]any, error) {
	t, err := fanTicket(args.FanID, args.TicketID)
	if err != nil {
		return nil, err
	}
	if t.String("status") != "valid" || t.String("kind") != "day_ticket" {
		return nil, fmt.Errorf("ticket %s is not a valid day ticket", args.TicketID)
	}
	if t.String("day_status") != "cancelled" {
		return nil, fmt.Errorf("%s is not cancelled: the ticket can only be refunded with its whole order within 14 days", t.String("day"))
	}
	if _, err := sdk.Exec("UPDATE tickets SET status = 'refunded' WHERE id = ?", args.TicketID); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE orders SET status = CASE WHEN EXISTS (SELECT 1 FROM tickets WHERE order_id = orders.id AND status <> 'refunded') THEN 'part_refunded' ELSE 'refunded' END WHERE id = ?", t.String("order_id")); err != nil {
		return nil, err
	}
	if err := charge(args.FanID, args.TicketID, "refund", -t.Float("price_paid")); err != nil {
		return nil, err
	}
	return map[string]any{"ticket_id": args.TicketID, "refunded": t.Float("price_paid"), "booking_fee_kept": t.Float("booking_fee")}, nil
}

// ListOnResale lists a valid ticket on the resale exchange at face value.
func ListOnResale(args TicketArgs) (map[string]any, error) {
	t, err := fanTicket(args.FanID, args.TicketID)
	if err != nil {
		return nil, err
	}
	if t.String("status") != "valid" {
		return nil, fmt.Errorf("ticket %s is %s", args.TicketID, t.String("status"))
	}
	if t.String("day_status") == "cancelled" {
		return nil, fmt.Errorf("%s is cancelled: refund the ticket instead", t.String("day"))
	}
	if _, err := sdk.Exec("INSERT INTO resale_listings (ticket_id, price, listed_at) VALUES (?, ?, ?)", args.TicketID, t.Float("price_paid"), stamp()); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE tickets SET status = 'on_resale' WHERE id = ?", args.TicketID); err != nil {
		return nil, err
	}
	return map[string]any{"ticket_id": args.TicketID, "listed_at_price": t.Float("price_paid")}, nil
}

// BuyTicketsArgs are buy_tickets' arguments.
type BuyTicketsArgs struct {
	// fan id
	FanID string `json:"fan_id"`
	// product id such as pr-sat
	ProductID string `json:"product_id"`
	// one full name per ticket
	HolderNames []string `json:"holder_names"`
}

// BuyTickets buys tickets of one product as a new order.
func BuyTickets(args BuyTicketsArgs) (map[string]any, error) {
	if err := fanExists(args.FanID); err != nil {
		return nil, err
	}
	if len(args.HolderNames) == 0 {
		return nil, errors.New("give one holder name per ticket")
	}
	p, err := sdk.QueryRow("SELECT p.id, p.kind, COALESCE(p.day, '') AS day, p.price, p.booking_fee, p.stock, COALESCE(d.status, 'on') AS day_status FROM products p LEFT JOIN festival_days d ON d.day = p.day WHERE p.id = ?", args.ProductID)
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no product %q", args.ProductID)
	}
	if err != nil {
		return nil, err
	}
	if p.String("day_status") == "cancelled" {
		return nil, errors.New("that day is cancelled")
	}
	n := int64(len(args.HolderNames))
	if p.Int("stock") < n {
		return nil, fmt.Errorf("only %d left", p.Int("stock"))
	}
	days := []string{p.String("day")}
	if p.String("kind") == "weekend_pass" {
		days = []string{"2024-06-14", "2024-06-15", "2024-06-16"}
	}
	for _, d := range days {
		have, err := ticketsForDay(args.FanID, d)
		if err != nil {
			return nil, err
		}
		if have+n > maxPerDay {
			return nil, fmt.Errorf("the fan holds %d tickets for %s; at most %d more are allowed", have, d, maxPerDay-have)
		}
	}
	oc, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM orders")
	if err != nil {
		return nil, err
	}
	order := fmt.Sprintf("o-%d", 101+oc.Int("n"))
	if _, err := sdk.Exec("INSERT INTO orders (id, fan_id, purchased_at, status) VALUES (?, ?, ?, 'paid')", order, args.FanID, stamp()); err != nil {
		return nil, err
	}
	var ids []string
	for _, name := range args.HolderNames {
		tc, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM tickets")
		if err != nil {
			return nil, err
		}
		id := fmt.Sprintf("tk-%d", 101+tc.Int("n"))
		if _, err := sdk.Exec("INSERT INTO tickets (id, order_id, product_id, holder_name, name_changes, price_paid, booking_fee, status) VALUES (?, ?, ?, ?, 0, ?, ?, 'valid')", id, order, args.ProductID, name, p.Float("price"), p.Float("booking_fee")); err != nil {
			return nil, err
		}
		if err := charge(args.FanID, id, "purchase", p.Float("price")+p.Float("booking_fee")); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	if _, err := sdk.Exec("UPDATE products SET stock = stock - ? WHERE id = ?", n, args.ProductID); err != nil {
		return nil, err
	}
	return map[string]any{"order_id": order, "tickets": ids, "charged": float64(n) * (p.Float("price") + p.Float("booking_fee"))}, nil
}
