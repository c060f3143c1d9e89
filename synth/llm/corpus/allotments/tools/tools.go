package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

type VerifyTenantArgs struct {
	// Tenancy number, e.g. T-3012.
	TenancyNumber string `json:"tenancy_number"`
	// The tenant's postcode.
	Postcode string `json:"postcode"`
}

// VerifyTenant verifies a tenant by tenancy number and postcode.
func VerifyTenant(args VerifyTenantArgs) (map[string]any, error) {
	t, err := tenantRow(args.TenancyNumber)
	if err != nil || normPostcode(t.String("postcode")) != normPostcode(args.Postcode) {
		return nil, errors.New("the tenancy number and postcode do not match a tenant")
	}
	return map[string]any{"tenant_id": t.String("id"), "name": t.String("name"), "household": t.String("household"), "pensioner": t.Int("pensioner") == 1}, nil
}

type TenantArgs struct {
	// Tenant id.
	TenantID string `json:"tenant_id"`
}

type TenancyOut struct {
	TenancyID  int64   `json:"tenancy_id"`
	PlotID     string  `json:"plot_id"`
	Site       string  `json:"site"`
	Number     int64   `json:"number"`
	Size       string  `json:"size"`
	HasTap     bool    `json:"has_tap"`
	YearlyRent float64 `json:"yearly_rent"`
	Status     string  `json:"status"`
	StartDate  string  `json:"start_date"`
	EndDate    *string `json:"end_date,omitempty"`
	Refund     float64 `json:"refund"`
}

type TenanciesOut struct {
	TenantID             string       `json:"tenant_id"`
	Tenancies            []TenancyOut `json:"tenancies"`
	HouseholdActivePlots int64        `json:"household_active_plots"`
	WarningsThisYear     int64        `json:"warnings_this_year"`
}

// ListTenancies lists the tenant's tenancies, household plots and warnings this year.
func ListTenancies(args TenantArgs) (TenanciesOut, error) {
	t, err := tenantRow(args.TenantID)
	if err != nil {
		return TenanciesOut{}, err
	}
	out := TenanciesOut{TenantID: t.String("id"), Tenancies: []TenancyOut{}}
	if err := list(&out.Tenancies, `SELECT json_object('tenancy_id', x.id, 'plot_id', p.id, 'site', s.name, 'number', p.number, 'size', p.size,
		'has_tap', json(CASE WHEN p.has_tap = 1 THEN 'true' ELSE 'false' END), 'yearly_rent', x.yearly_rent, 'status', x.status,
		'start_date', x.start_date, 'end_date', x.end_date, 'refund', x.refund) AS j
		FROM tenancies x JOIN plots p ON p.id = x.plot_id JOIN sites s ON s.id = p.site_id WHERE x.tenant_id = ? ORDER BY x.start_date`, t.String("id")); err != nil {
		return TenanciesOut{}, err
	}
	h, err := sdk.QueryRow(`SELECT COUNT(*) AS n FROM tenancies x JOIN tenants tn ON tn.id = x.tenant_id WHERE tn.household = ? AND x.status = 'active'`, t.String("household"))
	if err != nil {
		return TenanciesOut{}, err
	}
	w, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM warnings WHERE tenant_id = ? AND substr(issued_on, 1, 4) = ?", t.String("id"), today()[:4])
	if err != nil {
		return TenanciesOut{}, err
	}
	out.HouseholdActivePlots, out.WarningsThisYear = h.Int("n"), w.Int("n")
	return out, nil
}

type FindFreePlotsArgs struct {
	// Site (optional).
	SiteName string `json:"site_name,omitempty"`
	// full, half or raised (optional).
	Size string `json:"size,omitempty"`
	// Only plots with a tap (optional).
	HasTap bool `json:"has_tap,omitempty"`
}

// FindFreePlots lists free plots, cheapest first, then site and number.
func FindFreePlots(args FindFreePlotsArgs) (sdk.Rows, error) {
	tap := 0
	if args.HasTap {
		tap = 1
	}
	return sdk.Query(`SELECT p.id AS plot_id, s.name AS site, p.number, p.size, p.yearly_rent, p.has_tap FROM plots p JOIN sites s ON s.id = p.site_id
		WHERE (? = '' OR LOWER(s.name) = LOWER(?)) AND (? = '' OR p.size = LOWER(?)) AND (? = 0 OR p.has_tap = 1)
		AND NOT EXISTS (SELECT 1 FROM tenancies t WHERE t.plot_id = p.id AND t.status = 'active')
		ORDER BY p.yearly_rent, s.name, p.number`, strings.TrimSpace(args.SiteName), strings.TrimSpace(args.SiteName),
		strings.TrimSpace(args.Size), strings.TrimSpace(args.Size), tap)
}

type LetPlotArgs struct {
	// Tenant id.
	TenantID string `json:"tenant_id"`
	// Plot id.
	PlotID string `json:"plot_id"`
}

// LetPlot lets a free plot to the tenant from today.
func LetPlot(args LetPlotArgs) (map[string]any, error) {
	t, err := tenantRow(args.TenantID)
	if err != nil {
		return nil, err
	}
	p, err := plotRow(args.PlotID)
	if err != nil {
		return nil, err
	}
	if p.Int("taken") > 0 {
		return nil, fmt.Errorf("plot %s is not free", p.String("id"))
	}
	if err := checkHousehold(t, p.String("size"), 0); err != nil {
		return nil, err
	}
	rent := rentFor(t, p)
	res, err := sdk.Exec("INSERT INTO tenancies (tenant_id, plot_id, start_date, status, yearly_rent, refund) VALUES (?, ?, ?, 'active', ?, 0)", t.String("id"), p.String("id"), today(), rent)
	if err != nil {
		return nil, err
	}
	return map[string]any{"tenancy_id": res.LastInsertID, "plot_id": p.String("id"), "site": p.String("site"), "number": p.Int("number"), "size": p.String("size"), "yearly_rent": rent}, nil
}

type TenancyArgs struct {
	// Tenant id.
	TenantID string `json:"tenant_id"`
	// Tenancy id.
	TenancyID int64 `json:"tenancy_id"`
}

// QuoteEndTenancy returns the refund ending a tenancy today would give.
func QuoteEndTenancy(args TenancyArgs) (map[string]any, error) {
	x, err := ownTenancy(args.TenantID, args.TenancyID)
	if err != nil {
		return nil, err
	}
	refund, months := refundFor(x.Float("yearly_rent"))
	return map[string]any{"tenancy_id": args.TenancyID, "yearly_rent": x.Float("yearly_rent"), "whole_months_left": months, "refund": refund}, nil
}

// EndTenancy ends an active tenancy today with a refund.
func EndTenancy(args TenancyArgs) (map[string]any, error) {
	x, err := ownTenancy(args.TenantID, args.TenancyID)
	if err != nil {
		return nil, err
	}
	refund, months := refundFor(x.Float("yearly_rent"))
	if _, err := sdk.Exec("UPDATE tenancies SET status = 'ended', end_date = ?, refund = ? WHERE id = ?", today(), refund, args.TenancyID); err != nil {
		return nil, err
	}
	return map[string]any{"tenancy_id": args.TenancyID, "freed_plot_id": x.String("plot_id"), "site": x.String("site"), "number": x.Int("number"), "whole_months_left": months, "refund": refund}, nil
}

type MoveTenancyArgs struct {
	// Tenant id.
	TenantID string `json:"tenant_id"`
	// Tenancy id.
	TenancyID int64 `json:"tenancy_id"`
	// Free plot id.
	PlotID string `json:"plot_id"`
}

// MoveTenancy moves an active tenancy to another free plot.
func MoveTenancy(args MoveTenancyArgs) (map[string]any, error) {
	x, err := ownTenancy(args.TenantID, args.TenancyID)
	if err != nil {
		return nil, err
	}
	t, err := tenantRow(x.String("tenant_id"))
	if err != nil {
		return nil, err
	}
	p, err := plotRow(args.PlotID)
	if err != nil {
		return nil, err
	}
	if p.Int("taken") > 0 {
		return nil, fmt.Errorf("plot %s is not free", p.String("id"))
	}
	if err := checkHousehold(t, p.String("size"), args.TenancyID); err != nil {
		return nil, err
	}
	rent := rentFor(t, p)
	if _, err := sdk.Exec("UPDATE tenancies SET plot_id = ?, yearly_rent = ? WHERE id = ?", p.String("id"), rent, args.TenancyID); err != nil {
		return nil, err
	}
	return map[string]any{"tenancy_id": args.TenancyID, "plot_id": p.String("id"), "site": p.String("site"), "number": p.Int("number"), "yearly_rent": rent}, nil
}

type WaitingArgs struct {
	// Site.
	SiteName string `json:"site_name"`
	// full, half or raised.
	Size string `json:"size"`
}

type WaitingOut struct {
	Position int64  `json:"position"`
	TenantID string `json:"tenant_id"`
	JoinedOn string `json:"joined_on"`
	Status   string `json:"status"`
}

// GetWaitingList lists a site's waiting list for a size.
func GetWaitingList(args WaitingArgs) ([]WaitingOut, error) {
	site, err := siteID(args.SiteName)
	if err != nil {
		return nil, err
	}
	var rows []WaitingOut
	if err := list(&rows, `SELECT json_object('tenant_id', tenant_id, 'joined_on', joined_on, 'status', status) AS j FROM waiting_list
		WHERE site_id = ? AND size = LOWER(?) ORDER BY status <> 'waiting', joined_on, id`, site, strings.TrimSpace(args.Size)); err != nil {
		return nil, err
	}
	out := []WaitingOut{}
	pos := int64(0)
	for _, r := range rows {
		if r.Status == "waiting" {
			pos++
			r.Position = pos
		}
		out = append(out, r)
	}
	return out, nil
}

type JoinWaitingArgs struct {
	// Tenant id.
	TenantID string `json:"tenant_id"`
	// Site.
	SiteName string `json:"site_name"`
	// full, half or raised.
	Size string `json:"size"`
}

// JoinWaitingList adds the tenant to a site's waiting list for a size.
func JoinWaitingList(args JoinWaitingArgs) (map[string]any, error) {
	t, err := tenantRow(args.TenantID)
	if err != nil {
		return nil, err
	}
	site, err := siteID(args.SiteName)
	if err != nil {
		return nil, err
	}
	size := strings.ToLower(strings.TrimSpace(args.Size))
	if size != "full" && size != "half" && size != "raised" {
		return nil, fmt.Errorf("size must be full, half or raised, not %q", args.Size)
	}
	n, err := sdk.QueryRow("SELECT COUNT(*) AS n FROM waiting_list WHERE tenant_id = ? AND site_id = ? AND size = ? AND status = 'waiting'", t.String("id"), site, size)
	if err != nil {
		return nil, err
	}
	if n.Int("n") > 0 {
		return nil, fmt.Errorf("%s is already waiting for a %s plot at %s", t.String("name"), size, args.SiteName)
	}
	res, err := sdk.Exec("INSERT INTO waiting_list (tenant_id, site_id, size, joined_on, status) VALUES (?, ?, ?, ?, 'waiting')", t.String("id"), site, size, today())
	if err != nil {
		return nil, err
	}
	return map[string]any{"entry_id": res.LastInsertID, "site": args.SiteName, "size": size, "joined_on": today()}, nil
}

type OfferPlotArgs struct {
	// Free plot id.
	PlotID string `json:"plot_id"`
}

// OfferPlot offers a free plot to the earliest applicant waiting for it.
func OfferPlot(args OfferPlotArgs) (map[string]any, error) {
	p, err := plotRow(args.PlotID)
	if err != nil {
		return nil, err
	}
	if p.Int("taken") > 0 {
		return nil, fmt.Errorf("plot %s is not free", p.String("id"))
	}
	w, err := sdk.QueryRow("SELECT id, tenant_id, joined_on FROM waiting_list WHERE site_id = ? AND size = ? AND status = 'waiting' ORDER BY joined_on, id LIMIT 1", p.String("site_id"), p.String("size"))
	if errors.Is(err, sdk.ErrNoRows) {
		// Nobody waits: the plot stays free for anyone to rent.
		return map[string]any{"plot_id": p.String("id"), "offered_to": "", "note": fmt.Sprintf("nobody is waiting for a %s plot at %s; the plot stays free", p.String("size"), p.String("site"))}, nil
	}
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec("UPDATE waiting_list SET status = 'offered', offered_plot_id = ? WHERE id = ?", p.String("id"), w.Int("id")); err != nil {
		return nil, err
	}
	return map[string]any{"plot_id": p.String("id"), "offered_to": w.String("tenant_id"), "joined_on": w.String("joined_on")}, nil
}
