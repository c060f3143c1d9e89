package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// list runs a query whose one column j is a JSON object per row and
// decodes the rows, in order, into out (a pointer to a slice).
func list(out any, query string, args ...any) error {
	row, err := sdk.QueryRow("SELECT COALESCE(json_group_array(json(j)), '[]') AS j FROM ("+query+")", args...)
	if err != nil {
		return err
	}
	return json.Unmarshal([]byte(row.String("j")), out)
}

func money(f float64) float64 { return math.Round(f*100) / 100 }

func today() string { return sdk.Now().UTC().Format("2006-01-02") }

func normPostcode(s string) string {
	return strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
}

func tenantRow(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow("SELECT id, name, postcode, household, pensioner FROM tenants WHERE UPPER(id) = UPPER(?)", strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no tenant %q", id)
	}
	return row, err
}

func plotRow(id string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT p.id, p.site_id, s.name AS site, p.number, p.size, p.yearly_rent, p.has_tap,
		(SELECT COUNT(*) FROM tenancies t WHERE t.plot_id = p.id AND t.status = 'active') AS taken
		FROM plots p JOIN sites s ON s.id = p.site_id WHERE UPPER(p.id) = UPPER(?)`, strings.TrimSpace(id))
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no plot %q", id)
	}
	return row, err
}

func siteID(name string) (string, error) {
	row, err := sdk.QueryRow("SELECT id FROM sites WHERE LOWER(name) = LOWER(?)", strings.TrimSpace(name))
	if errors.Is(err, sdk.ErrNoRows) {
		return "", fmt.Errorf("no site %q", name)
	}
	if err != nil {
		return "", err
	}
	return row.String("id"), nil
}

// checkHousehold says whether the household may hold one more plot of the
// size, leaving out one tenancy (the one being moved).
func checkHousehold(t sdk.Row, size string, except int64) error {
	row, err := sdk.QueryRow(`SELECT COUNT(*) AS n, COALESCE(SUM(p.size = 'full'), 0) AS full FROM tenancies x JOIN tenants tn ON tn.id = x.tenant_id
		JOIN plots p ON p.id = x.plot_id WHERE tn.household = ? AND x.status = 'active' AND x.id <> ?`, t.String("household"), except)
	if err != nil {
		return err
	}
	n, full := row.Int("n"), row.Int("full")
	switch {
	case size == "full" && n > 0:
		return fmt.Errorf("the household already holds %d plot(s): a full plot must be its only plot", n)
	case size != "full" && full > 0:
		return errors.New("the household holds a full plot, so it may not hold another plot")
	case size != "full" && n >= 2:
		return errors.New("the household already holds two smaller plots, the most allowed")
	}
	return nil
}

func rentFor(t sdk.Row, p sdk.Row) float64 {
	r := p.Float("yearly_rent")
	if t.Int("pensioner") == 1 {
		r = money(r / 2)
	}
	return r
}

// refundFor is the rent of the whole months left in the year after this one.
func refundFor(yearlyRent float64) (float64, int) {
	months := 12 - int(sdk.Now().UTC().Month())
	return money(yearlyRent * float64(months) / 12), months
}

func ownTenancy(tenantID string, id int64) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT t.id, t.tenant_id, t.plot_id, t.status, t.yearly_rent, p.size, s.name AS site, p.number
		FROM tenancies t JOIN plots p ON p.id = t.plot_id JOIN sites s ON s.id = p.site_id WHERE t.id = ?`, id)
	if errors.Is(err, sdk.ErrNoRows) {
		return sdk.Row{}, fmt.Errorf("no tenancy %d", id)
	}
	if err != nil {
		return sdk.Row{}, err
	}
	if !strings.EqualFold(row.String("tenant_id"), strings.TrimSpace(tenantID)) {
		return sdk.Row{}, fmt.Errorf("tenancy %d is not tenant %s's", id, tenantID)
	}
	if row.String("status") != "active" {
		return sdk.Row{}, fmt.Errorf("tenancy %d has already ended", id)
	}
	return row, nil
}

var _ = time.RFC3339
