package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

type VerifyResidentArgs struct {
	// Account number, e.g. RC-4410
	AccountID string `json:"account_id"`
	// Street address on the account
	StreetAddress string `json:"street_address"`
}

// VerifyResident verifies a resident by account number and street address; call it before anything else.
func VerifyResident(args VerifyResidentArgs) (map[string]any, error) {
	r, err := loadResident(args.AccountID)
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(strings.TrimSpace(args.StreetAddress), r.String("street_address")) {
		return nil, fmt.Errorf("the street address does not match account %s", args.AccountID)
	}
	return map[string]any{"verified": true, "account_id": r.String("id"), "name": r.String("name"), "zone": r.String("zone")}, nil
}

type AccountArgs struct {
	// Account number
	AccountID string `json:"account_id"`
}

// GetAccount returns the resident's collections (date, status, items, fees), replacement bin orders and total fees owed.
func GetAccount(args AccountArgs) (map[string]any, error) {
	r, err := loadResident(args.AccountID)
	if err != nil {
		return nil, err
	}
	cols, err := sdk.Query(`SELECT c.id AS collection_id, d.day, c.status,
		COALESCE((SELECT group_concat(t.name, ', ') FROM collection_items i JOIN item_types t ON t.code = i.item_code WHERE i.collection_id = c.id), '') AS items,
		COALESCE((SELECT SUM(i.fee) FROM collection_items i WHERE i.collection_id = c.id), 0) AS fees
		FROM collections c JOIN collection_days d ON d.id = c.day_id WHERE c.resident_id = ? ORDER BY d.day`, r.String("id"))
	if err != nil {
		return nil, err
	}
	bins, err := sdk.Query(`SELECT bin_type, fee, paid, ordered_on FROM bin_orders WHERE resident_id = ? ORDER BY ordered_on`, r.String("id"))
	if err != nil {
		return nil, err
	}
	owed, err := sdk.QueryRow(`SELECT ROUND(COALESCE((SELECT SUM(i.fee) FROM collection_items i JOIN collections c ON c.id = i.collection_id WHERE c.resident_id = ? AND c.status = 'booked'), 0)
		+ COALESCE((SELECT SUM(fee) FROM bin_orders WHERE resident_id = ? AND paid = 0), 0), 2) AS owed`, r.String("id"), r.String("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"account_id": r.String("id"), "name": r.String("name"), "zone": r.String("zone"), "collections": cols, "bin_orders": bins, "fees_owed": owed.Float("owed")}, nil
}

// ListCollectionDays lists the upcoming collection days of the resident's zone with places left.
func ListCollectionDays(args AccountArgs) (sdk.Rows, error) {
	r, err := loadResident(args.AccountID)
	if err != nil {
		var none sdk.Rows
		return none, err
	}
	return sdk.Query(`SELECT d.day, d.capacity - (SELECT COUNT(*) FROM collections c WHERE c.day_id = d.id AND c.status = 'booked') AS places_left
		FROM collection_days d WHERE d.zone_id = ? AND d.day > ? ORDER BY d.day`, r.String("zone_id"), today())
}

// ListItemTypes lists the bulky items that can be collected, whether each contains refrigerant, and its fee.
func ListItemTypes() (sdk.Rows, error) {
	return sdk.Query(`SELECT name, refrigerant, fee FROM item_types ORDER BY name`)
}

type BookCollectionArgs struct {
	// Account number
	AccountID string `json:"account_id"`
	// Collection day, YYYY-MM-DD
	Date string `json:"date"`
	// Item names, e.g. Sofa
	Items []string `json:"items"`
}

// BookCollection books a bulky collection of 1 to 4 listed items on a future collection day of the resident's zone with places left; refrigerant appliances carry their fee.
func BookCollection(args BookCollectionArgs) (sdk.Row, error) {
	r, err := loadResident(args.AccountID)
	if err != nil {
		return noRow(), err
	}
	if len(args.Items) < 1 || len(args.Items) > 4 {
		return noRow(), fmt.Errorf("a collection takes 1 to 4 items, not %d", len(args.Items))
	}
	d, err := zoneDay(r.String("zone_id"), args.Date)
	if err != nil {
		return noRow(), err
	}
	if d.Int("places_left") <= 0 {
		return noRow(), fmt.Errorf("collection day %s is full", d.String("day"))
	}
	types := make([]sdk.Row, 0, len(args.Items))
	for _, name := range args.Items {
		it, err := itemType(name)
		if err != nil {
			return noRow(), err
		}
		types = append(types, it)
	}
	next, err := sdk.QueryRow(`SELECT COALESCE(MAX(CAST(SUBSTR(id, 3) AS INTEGER)), 0) + 1 AS n FROM collections WHERE id LIKE 'C-%'`)
	if err != nil {
		return noRow(), err
	}
	id := fmt.Sprintf("C-%02d", next.Int("n"))
	if _, err := sdk.Exec(`INSERT INTO collections (id, resident_id, day_id, status, created_at) VALUES (?, ?, ?, 'booked', ?)`, id, r.String("id"), d.String("id"), sdk.Now().UTC().Format("2006-01-02T15:04:05Z")); err != nil {
		return noRow(), err
	}
	for _, it := range types {
		if _, err := sdk.Exec(`INSERT INTO collection_items (collection_id, item_code, fee) VALUES (?, ?, ?)`, id, it.String("code"), it.Float("fee")); err != nil {
			return noRow(), err
		}
	}
	return collectionView(id)
}

type CollectionItemArgs struct {
	// Account number
	AccountID string `json:"account_id"`
	// Collection id
	CollectionID string `json:"collection_id"`
	// Item name
	Item string `json:"item"`
}

// AddCollectionItem adds a listed item to a booked collection until the day before it; at most 4 items.
func AddCollectionItem(args CollectionItemArgs) (sdk.Row, error) {
	c, err := changeableCollection(args.AccountID, args.CollectionID)
	if err != nil {
		return noRow(), err
	}
	it, err := itemType(args.Item)
	if err != nil {
		return noRow(), err
	}
	n, err := sdk.QueryRow(`SELECT COUNT(*) AS n FROM collection_items WHERE collection_id = ?`, c.String("id"))
	if err != nil {
		return noRow(), err
	}
	if n.Int("n") >= 4 {
		return noRow(), fmt.Errorf("collection %s already has 4 items, the most allowed", c.String("id"))
	}
	if _, err := sdk.Exec(`INSERT INTO collection_items (collection_id, item_code, fee) VALUES (?, ?, ?)`, c.String("id"), it.String("code"), it.Float("fee")); err != nil {
		return noRow(), err
	}
	return collectionView(c.String("id"))
}

// RemoveCollectionItem removes an item from a booked collection until the day before it; one item must stay.
func RemoveCollectionItem(args CollectionItemArgs) (sdk.Row, error) {
	c, err := changeableCollection(args.AccountID, args.CollectionID)
	if err != nil {
		return noRow(), err
	}
	it, err := itemType(args.Item)
	if err != nil {
		return noRow(), err
	}
	row, err := sdk.QueryRow(`SELECT id FROM collection_items WHERE collection_id = ? AND item_code = ? LIMIT 1`, c.String("id"), it.String("code"))
	if errors.Is(err, sdk.ErrNoRows) {
		return noRow(), fmt.Errorf("collection %s has no %s", c.String("id"), it.String("name"))
	}
	if err != nil {
		return noRow(), err
	}
	n, err := sdk.QueryRow(`SELECT COUNT(*) AS n FROM collection_items WHERE collection_id = ?`, c.String("id"))
	if err != nil {
		return noRow(), err
	}
	if n.Int("n") <= 1 {
		return noRow(), errors.New("this is the collection's only item: cancel the collection instead")
	}
	if _, err := sdk.Exec(`DELETE FROM collection_items WHERE id = ?`, row.Int("id")); err != nil {
		return noRow(), err
	}
	return collectionView(c.String("id"))
}

type MoveCollectionArgs struct {
	// Account number
	AccountID string `json:"account_id"`
	// Collection id
	CollectionID string `json:"collection_id"`
	// New collection day, YYYY-MM-DD
	Date string `json:"date"`
}

// MoveCollection moves a booked collection to another zone collection day with places left, until the day before the current one.
func MoveCollection(args MoveCollectionArgs) (sdk.Row, error) {
	c, err := changeableCollection(args.AccountID, args.CollectionID)
	if err != nil {
		return noRow(), err
	}
	d, err := zoneDay(c.String("zone_id"), args.Date)
	if err != nil {
		return noRow(), err
	}
	if d.String("id") == c.String("day_id") {
		return noRow(), fmt.Errorf("collection %s is already on %s", c.String("id"), d.String("day"))
	}
	if d.Int("places_left") <= 0 {
		return noRow(), fmt.Errorf("collection day %s is full", d.String("day"))
	}
	if _, err := sdk.Exec(`UPDATE collections SET day_id = ? WHERE id = ?`, d.String("id"), c.String("id")); err != nil {
		return noRow(), err
	}
	return collectionView(c.String("id"))
}

type CancelCollectionArgs struct {
	// Account number
	AccountID string `json:"account_id"`
	// Collection id
	CollectionID string `json:"collection_id"`
}

// CancelCollection cancels a booked collection until the day before it.
func CancelCollection(args CancelCollectionArgs) (sdk.Row, error) {
	c, err := changeableCollection(args.AccountID, args.CollectionID)
	if err != nil {
		return noRow(), err
	}
	if _, err := sdk.Exec(`UPDATE collections SET status = 'cancelled' WHERE id = ?`, c.String("id")); err != nil {
		return noRow(), err
	}
	return collectionView(c.String("id"))
}

type OrderReplacementBinArgs struct {
	// Account number
	AccountID string `json:"account_id"`
	// recycling, garden or general
	BinType string `json:"bin_type"`
}

// OrderReplacementBin orders a replacement bin: free for the first of its type this calendar year, otherwise its fee (recycling 20.00, garden 25.00, general 30.00), owed until paid.
func OrderReplacementBin(args OrderReplacementBinArgs) (map[string]any, error) {
	r, err := loadResident(args.AccountID)
	if err != nil {
		return nil, err
	}
	binType := strings.ToLower(strings.TrimSpace(args.BinType))
	fee, err := binFee(binType)
	if err != nil {
		return nil, err
	}
	n, err := sdk.QueryRow(`SELECT COUNT(*) AS n FROM bin_orders WHERE resident_id = ? AND bin_type = ? AND substr(ordered_on, 1, 4) = ?`, r.String("id"), binType, today()[:4])
	if err != nil {
		return nil, err
	}
	if n.Int("n") == 0 {
		fee = 0
	}
	paid := 0
	if fee == 0 {
		paid = 1
	}
	res, err := sdk.Exec(`INSERT INTO bin_orders (resident_id, bin_type, fee, paid, ordered_on) VALUES (?, ?, ?, ?, ?)`, r.String("id"), binType, fee, paid, today())
	if err != nil {
		return nil, err
	}
	return map[string]any{"order_id": res.LastInsertID, "bin_type": binType, "fee": fee, "ordered_on": today()}, nil
}

type ReportMissedPickupArgs struct {
	// Account number
	AccountID string `json:"account_id"`
	// recycling, garden or general
	Stream string `json:"stream"`
	// Date of the missed pickup, YYYY-MM-DD
	MissedOn string `json:"missed_on"`
}

// ReportMissedPickup reports a bin pickup missed within the last 48 hours and schedules a return visit for tomorrow.
func ReportMissedPickup(args ReportMissedPickupArgs) (map[string]any, error) {
	r, err := loadResident(args.AccountID)
	if err != nil {
		return nil, err
	}
	stream := strings.ToLower(strings.TrimSpace(args.Stream))
	if _, err := binFee(stream); err != nil {
		return nil, fmt.Errorf("unknown stream %q: use recycling, garden or general", args.Stream)
	}
	days, err := daysFromToday(args.MissedOn)
	if err != nil {
		return nil, err
	}
	if days > 0 {
		return nil, errors.New("the missed pickup date is in the future")
	}
	if days < -2 {
		return nil, fmt.Errorf("the pickup of %s is more than 48 hours ago: it can no longer be reported", args.MissedOn)
	}
	if _, err := sdk.QueryRow(`SELECT id FROM missed_pickups WHERE resident_id = ? AND stream = ? AND missed_on = ?`, r.String("id"), stream, strings.TrimSpace(args.MissedOn)); err == nil {
		return nil, errors.New("this missed pickup has already been reported")
	}
	visit := sdk.Now().UTC().AddDate(0, 0, 1).Format("2006-01-02")
	res, err := sdk.Exec(`INSERT INTO missed_pickups (resident_id, stream, missed_on, reported_at, return_visit_on) VALUES (?, ?, ?, ?, ?)`, r.String("id"), stream, strings.TrimSpace(args.MissedOn), sdk.Now().UTC().Format("2006-01-02T15:04:05Z"), visit)
	if err != nil {
		return nil, err
	}
	return map[string]any{"report_id": res.LastInsertID, "stream": stream, "missed_on": strings.TrimSpace(args.MissedOn), "return_visit_on": visit}, nil
}
