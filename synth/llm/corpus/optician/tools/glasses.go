package tools

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

type ListFramesArgs struct {
	// Range, e.g. Classic (optional).
	RangeName string `json:"range_name,omitempty"`
	// Only frames in stock.
	InStockOnly bool `json:"in_stock_only,omitempty"`
}

// ListFrames lists frames, cheapest first.
func ListFrames(args ListFramesArgs) (sdk.Rows, error) {
	stock := 0
	if args.InStockOnly {
		stock = 1
	}
	return sdk.Query(`SELECT id, model, range_name, colour, price, stock FROM frames
		WHERE (? = '' OR LOWER(range_name) = LOWER(?)) AND (? = 0 OR stock > 0) ORDER BY price, id`,
		strings.TrimSpace(args.RangeName), strings.TrimSpace(args.RangeName), stock)
}

// ListAddons lists lens add-ons.
func ListAddons() (sdk.Rows, error) {
	return sdk.Query("SELECT id, name, price FROM addons ORDER BY id")
}

type QuoteGlassesArgs struct {
	// Patient id.
	PatientID string `json:"patient_id"`
	// Frame id.
	FrameID string `json:"frame_id"`
	// Add-on ids.
	AddonIDs []string `json:"addon_ids,omitempty"`
}

type QuoteOut struct {
	Frame      string  `json:"frame"`
	FramePrice float64 `json:"frame_price"`
	Addons     float64 `json:"addons"`
	Subtotal   float64 `json:"subtotal"`
	Voucher    float64 `json:"voucher"`
	Total      float64 `json:"total"`
	InStock    bool    `json:"in_stock"`
}

func quote(p, f sdk.Row, addonIDs []string, useVoucher bool) (QuoteOut, []string, error) {
	addons, clean, err := addonsTotal(addonIDs)
	if err != nil {
		return QuoteOut{}, nil, err
	}
	q := QuoteOut{Frame: f.String("model") + " (" + f.String("colour") + ")", FramePrice: f.Float("price"), Addons: addons, InStock: f.Int("stock") > 0}
	q.Subtotal = money(q.FramePrice + addons)
	if useVoucher && freeTests(p) {
		q.Voucher = voucherCap
		if q.Subtotal < q.Voucher {
			q.Voucher = q.Subtotal
		}
	}
	q.Total = money(q.Subtotal - q.Voucher)
	return q, clean, nil
}

// QuoteGlasses prices glasses without ordering, with the voucher the patient qualifies for.
func QuoteGlasses(args QuoteGlassesArgs) (QuoteOut, error) {
	p, err := patientRow(args.PatientID)
	if err != nil {
		return QuoteOut{}, err
	}
	f, err := frameRow(args.FrameID)
	if err != nil {
		return QuoteOut{}, err
	}
	q, _, err := quote(p, f, args.AddonIDs, true)
	return q, err
}

type OrderGlassesArgs struct {
	// Patient id.
	PatientID string `json:"patient_id"`
	// Frame id.
	FrameID string `json:"frame_id"`
	// Add-on ids.
	AddonIDs []string `json:"addon_ids,omitempty"`
	// Apply the voucher if the patient qualifies.
	UseVoucher bool `json:"use_voucher,omitempty"`
}

// OrderGlasses orders glasses from the patient's latest prescription.
func OrderGlasses(args OrderGlassesArgs) (map[string]any, error) {
	p, err := patientRow(args.PatientID)
	if err != nil {
		return nil, err
	}
	f, err := frameRow(args.FrameID)
	if err != nil {
		return nil, err
	}
	if f.Int("stock") < 1 {
		return nil, fmt.Errorf("frame %s (%s %s) is out of stock", f.String("id"), f.String("model"), f.String("colour"))
	}
	rx, err := sdk.QueryRow("SELECT id FROM prescriptions WHERE patient_id = ? ORDER BY issued_on DESC LIMIT 1", p.String("id"))
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("%s has no prescription", p.String("name"))
	}
	if err != nil {
		return nil, err
	}
	q, clean, err := quote(p, f, args.AddonIDs, args.UseVoucher)
	if err != nil {
		return nil, err
	}
	res, err := sdk.Exec("INSERT INTO orders (patient_id, prescription_id, frame_id, status, voucher, total, paid, created_at) VALUES (?, ?, ?, 'pending', ?, ?, 0, ?)",
		p.String("id"), rx.String("id"), f.String("id"), q.Voucher, q.Total, sdk.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return nil, err
	}
	for _, id := range clean {
		if _, err := sdk.Exec("INSERT INTO order_addons (order_id, addon_id, price) SELECT ?, id, price FROM addons WHERE id = ?", res.LastInsertID, id); err != nil {
			return nil, err
		}
	}
	if _, err := sdk.Exec("UPDATE frames SET stock = stock - 1 WHERE id = ?", f.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"order_id": res.LastInsertID, "prescription_id": rx.String("id"), "frame": q.Frame, "subtotal": q.Subtotal, "voucher": q.Voucher, "total": q.Total}, nil
}

type OrderOut struct {
	OrderID      int64   `json:"order_id"`
	Prescription string  `json:"prescription_id"`
	FrameID      string  `json:"frame_id"`
	Frame        string  `json:"frame"`
	Addons       string  `json:"addons"`
	Status       string  `json:"status"`
	Voucher      float64 `json:"voucher"`
	Total        float64 `json:"total"`
	Paid         bool    `json:"paid"`
}

// ListOrders lists a patient's glasses orders.
func ListOrders(args PatientArgs) ([]OrderOut, error) {
	p, err := patientRow(args.PatientID)
	if err != nil {
		return nil, err
	}
	out := []OrderOut{}
	err = list(&out, `SELECT json_object('order_id', o.id, 'prescription_id', o.prescription_id, 'frame_id', o.frame_id,
		'frame', f.model || ' (' || f.colour || ', ' || f.range_name || ')', 'addons', COALESCE((SELECT group_concat(a.name, ', ') FROM order_addons oa
		JOIN addons a ON a.id = oa.addon_id WHERE oa.order_id = o.id), ''), 'status', o.status, 'voucher', o.voucher, 'total', o.total,
		'paid', json(CASE WHEN o.paid = 1 THEN 'true' ELSE 'false' END)) AS j
		FROM orders o JOIN frames f ON f.id = o.frame_id WHERE o.patient_id = ? ORDER BY o.created_at`, p.String("id"))
	return out, err
}

type ChangeOrderArgs struct {
	// Patient id.
	PatientID string `json:"patient_id"`
	// Order id.
	OrderID int64 `json:"order_id"`
	// New frame (optional).
	FrameID string `json:"frame_id,omitempty"`
	// Add-ons to add (optional).
	AddAddonIDs []string `json:"add_addon_ids,omitempty"`
}

// ChangeOrder changes a pending order's frame or adds add-ons, and reprices it.
func ChangeOrder(args ChangeOrderArgs) (map[string]any, error) {
	o, err := ownOrder(args.PatientID, args.OrderID)
	if err != nil {
		return nil, err
	}
	if o.String("status") != "pending" {
		return nil, fmt.Errorf("order %d is %s and can no longer be changed", args.OrderID, o.String("status"))
	}
	p, err := patientRow(o.String("patient_id"))
	if err != nil {
		return nil, err
	}
	frameID := o.String("frame_id")
	if strings.TrimSpace(args.FrameID) != "" {
		f, err := frameRow(args.FrameID)
		if err != nil {
			return nil, err
		}
		if f.String("id") != frameID {
			if f.Int("stock") < 1 {
				return nil, fmt.Errorf("frame %s (%s %s) is out of stock", f.String("id"), f.String("model"), f.String("colour"))
			}
			if _, err := sdk.Exec("UPDATE frames SET stock = stock + 1 WHERE id = ?", frameID); err != nil {
				return nil, err
			}
			if _, err := sdk.Exec("UPDATE frames SET stock = stock - 1 WHERE id = ?", f.String("id")); err != nil {
				return nil, err
			}
			frameID = f.String("id")
		}
	}
	_, clean, err := addonsTotal(args.AddAddonIDs)
	if err != nil {
		return nil, err
	}
	for _, id := range clean {
		if _, err := sdk.Exec("INSERT OR IGNORE INTO order_addons (order_id, addon_id, price) SELECT ?, id, price FROM addons WHERE id = ?", args.OrderID, id); err != nil {
			return nil, err
		}
	}
	f, err := frameRow(frameID)
	if err != nil {
		return nil, err
	}
	sum, err := sdk.QueryRow("SELECT COALESCE(SUM(price), 0) AS s FROM order_addons WHERE order_id = ?", args.OrderID)
	if err != nil {
		return nil, err
	}
	subtotal := money(f.Float("price") + sum.Float("s"))
	voucher := 0.0
	if o.Float("voucher") > 0 && freeTests(p) {
		voucher = voucherCap
		if subtotal < voucher {
			voucher = subtotal
		}
	}
	total := money(subtotal - voucher)
	if _, err := sdk.Exec("UPDATE orders SET frame_id = ?, voucher = ?, total = ? WHERE id = ?", frameID, voucher, total, args.OrderID); err != nil {
		return nil, err
	}
	return map[string]any{"order_id": args.OrderID, "frame": f.String("model") + " (" + f.String("colour") + ")", "subtotal": subtotal, "voucher": voucher, "total": total}, nil
}

type CancelOrderArgs struct {
	// Patient id.
	PatientID string `json:"patient_id"`
	// Order id.
	OrderID int64 `json:"order_id"`
}

// CancelOrder cancels a pending order and restocks its frame.
func CancelOrder(args CancelOrderArgs) (map[string]any, error) {
	o, err := ownOrder(args.PatientID, args.OrderID)
	if err != nil {
		return nil, err
	}
	if o.String("status") != "pending" {
		return nil, fmt.Errorf("order %d is %s and cannot be cancelled", args.OrderID, o.String("status"))
	}
	if _, err := sdk.Exec("UPDATE orders SET status = 'cancelled' WHERE id = ?", args.OrderID); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE frames SET stock = stock + 1 WHERE id = ?", o.String("frame_id")); err != nil {
		return nil, err
	}
	return map[string]any{"order_id": args.OrderID, "status": "cancelled"}, nil
}
