package tools

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// binFees is the price of a replacement bin beyond the free one each calendar year.
func binFee(binType string) (float64, error) {
	switch binType {
	case "recycling":
		return 20, nil
	case "garden":
		return 25, nil
	case "general":
		return 30, nil
	}
	return 0, fmt.Errorf("unknown bin type %q: use recycling, garden or general", binType)
}

func noRow() sdk.Row {
	var r sdk.Row
	return r
}

func today() string { return sdk.Now().UTC().Format("2006-01-02") }

// daysFromToday is how many days a date lies after today (negative: before).
func daysFromToday(date string) (int, error) {
	d, err := time.Parse("2006-01-02", strings.TrimSpace(date))
	if err != nil {
		return 0, fmt.Errorf("invalid date %q: use YYYY-MM-DD", date)
	}
	t, _ := time.Parse("2006-01-02", today())
	return int(math.Round(d.Sub(t).Hours() / 24)), nil
}

func loadResident(id string) (sdk.Row, error) {
	r, err := sdk.QueryRow(`SELECT r.*, z.name AS zone FROM residents r JOIN zones z ON z.id = r.zone_id WHERE r.id = ?`, strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return r, fmt.Errorf("account %s not found", id)
	}
	return r, err
}

// zoneDay loads a future collection day of the zone with its places left.
func zoneDay(zoneID, date string) (sdk.Row, error) {
	d, err := sdk.QueryRow(`SELECT d.*, d.capacity - (SELECT COUNT(*) FROM collections c WHERE c.day_id = d.id AND c.status = 'booked') AS places_left FROM collection_days d WHERE d.zone_id = ? AND d.day = ?`, zoneID, strings.TrimSpace(date))
	if errors.Is(err, sdk.ErrNoRows) {
		return d, fmt.Errorf("%s is not a collection day of the resident's zone", date)
	}
	if err != nil {
		return d, err
	}
	days, err := daysFromToday(d.String("day"))
	if err != nil {
		return d, err
	}
	if days <= 0 {
		return d, fmt.Errorf("collection day %s is not after today", d.String("day"))
	}
	return d, nil
}

// itemType finds an item of the list by name (or code).
func itemType(name string) (sdk.Row, error) {
	it, err := sdk.QueryRow(`SELECT * FROM item_types WHERE lower(name) = lower(?) OR code = lower(replace(?, ' ', '_'))`, strings.TrimSpace(name), strings.TrimSpace(name))
	if errors.Is(err, sdk.ErrNoRows) {
		return it, fmt.Errorf("%q is not on the bulky item list", name)
	}
	return it, err
}

// changeableCollection loads one of the resident's booked collections whose day is after today.
func changeableCollection(accountID, collectionID string) (sdk.Row, error) {
	if r, err := loadResident(accountID); err != nil {
		return r, err
	}
	c, err := sdk.QueryRow(`SELECT c.*, d.day, d.zone_id FROM collections c JOIN collection_days d ON d.id = c.day_id WHERE c.id = ? AND c.resident_id = ?`, strings.TrimSpace(collectionID), accountID)
	if errors.Is(err, sdk.ErrNoRows) {
		return c, fmt.Errorf("collection %s not found on account %s", collectionID, accountID)
	}
	if err != nil {
		return c, err
	}
	if c.String("status") != "booked" {
		return c, fmt.Errorf("collection %s is %s", c.String("id"), c.String("status"))
	}
	days, err := daysFromToday(c.String("day"))
	if err != nil {
		return c, err
	}
	if days < 1 {
		return c, fmt.Errorf("collection %s is on %s: it can only be changed until the day before", c.String("id"), c.String("day"))
	}
	return c, nil
}

func collectionView(id string) (sdk.Row, error) {
	return sdk.QueryRow(`SELECT c.id AS collection_id, d.day, c.status,
		COALESCE((SELECT group_concat(t.name, ', ') FROM collection_items i JOIN item_types t ON t.code = i.item_code WHERE i.collection_id = c.id), '') AS items,
		(SELECT COUNT(*) FROM collection_items i WHERE i.collection_id = c.id) AS item_count,
		COALESCE((SELECT SUM(i.fee) FROM collection_items i WHERE i.collection_id = c.id), 0) AS fees
		FROM collections c JOIN collection_days d ON d.id = c.day_id WHERE c.id = ?`, id)
}
