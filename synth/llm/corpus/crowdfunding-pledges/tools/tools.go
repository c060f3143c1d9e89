package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

type VerifyBackerArgs struct {
	// Backer email
	Email string `json:"email"`
	// Last four digits of the card
	CardLast4 string `json:"card_last4"`
}

// VerifyBacker verifies a backer by email and the last four digits of the card on file; call it before anything else.
func VerifyBacker(args VerifyBackerArgs) (map[string]any, error) {
	b, err := sdk.QueryRow(`SELECT id, name, card_last4 FROM backers WHERE lower(email) = lower(?)`, strings.TrimSpace(args.Email))
	if errors.Is(err, sdk.ErrNoRows) {
		return nil, fmt.Errorf("no backer has the email %s", args.Email)
	}
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(args.CardLast4) != b.String("card_last4") {
		return nil, errors.New("the card digits do not match the card on file")
	}
	return map[string]any{"verified": true, "backer_id": b.String("id"), "name": b.String("name")}, nil
}

type GetCampaignArgs struct {
	// Campaign title
	Title string `json:"title"`
}

// GetCampaign returns a campaign's status, end, goal, amount raised, amount still needed and its tiers (minimum pledge, units left).
func GetCampaign(args GetCampaignArgs) (map[string]any, error) {
	c, err := campaignByTitle(args.Title)
	if err != nil {
		return nil, err
	}
	tiers, err := sdk.Query(`SELECT id AS tier_id, name, min_amount, units_left FROM tiers WHERE campaign_id = ? ORDER BY min_amount`, c.String("id"))
	if err != nil {
		return nil, err
	}
	needed := round2(c.Float("goal") - c.Float("raised"))
	if needed < 0 {
		needed = 0
	}
	return map[string]any{"campaign_id": c.String("id"), "title": c.String("title"), "status": c.String("status"), "ends_at": c.String("ends_at"),
		"goal": c.Float("goal"), "raised": c.Float("raised"), "still_needed": needed, "tiers": tiers}, nil
}

type BackerArgs struct {
	// Backer id
	BackerID string `json:"backer_id"`
}

// ListPledges lists a backer's pledges: campaign, tier, amount, status, shipping address, reward status.
func ListPledges(args BackerArgs) (sdk.Rows, error) {
	if err := requireBacker(args.BackerID); err != nil {
		var none sdk.Rows
		return none, err
	}
	return sdk.Query(`SELECT p.id AS pledge_id, c.title AS campaign, c.status AS campaign_status, t.name AS tier, p.amount, p.status, p.shipping_address, p.reward_status
		FROM pledges p JOIN campaigns c ON c.id = p.campaign_id JOIN tiers t ON t.id = p.tier_id WHERE p.backer_id = ? ORDER BY p.created_at`, args.BackerID)
}

type CreatePledgeArgs struct {
	// Backer id
	BackerID string `json:"backer_id"`
	// Campaign title
	Campaign string `json:"campaign"`
	// Tier name, e.g. Early Bird
	Tier string `json:"tier"`
	// Pledge amount
	Amount float64 `json:"amount"`
	// Shipping address for the reward
	ShippingAddress string `json:"shipping_address,omitempty"`
}

// CreatePledge pledges to a live campaign at a tier with units left, at least the tier's minimum; one active pledge per campaign.
func CreatePledge(args CreatePledgeArgs) (sdk.Row, error) {
	if err := requireBacker(args.BackerID); err != nil {
		return noRow(), err
	}
	c, err := campaignByTitle(args.Campaign)
	if err != nil {
		return noRow(), err
	}
	if !isLive(c) {
		return noRow(), fmt.Errorf("campaign %s has ended (%s): it takes no pledges", c.String("title"), c.String("status"))
	}
	t, err := tierByName(c.String("id"), args.Tier)
	if err != nil {
		return noRow(), err
	}
	if t.Int("units_left") <= 0 {
		return noRow(), fmt.Errorf("the %s tier has no units left", t.String("name"))
	}
	if args.Amount < t.Float("min_amount") {
		return noRow(), fmt.Errorf("the %s tier needs at least %.2f", t.String("name"), t.Float("min_amount"))
	}
	if _, err := sdk.QueryRow(`SELECT id FROM pledges WHERE backer_id = ? AND campaign_id = ? AND status = 'active'`, args.BackerID, c.String("id")); err == nil {
		return noRow(), fmt.Errorf("the backer already has an active pledge to %s: change it instead", c.String("title"))
	}
	addr := strings.TrimSpace(args.ShippingAddress)
	if addr == "" {
		if last, err := sdk.QueryRow(`SELECT shipping_address FROM pledges WHERE backer_id = ? ORDER BY created_at DESC LIMIT 1`, args.BackerID); err == nil {
			addr = last.String("shipping_address")
		}
	}
	next, err := sdk.QueryRow(`SELECT COALESCE(MAX(CAST(SUBSTR(id, 4) AS INTEGER)), 0) + 1 AS n FROM pledges WHERE id LIKE 'PG-%'`)
	if err != nil {
		return noRow(), err
	}
	id := fmt.Sprintf("PG-%02d", next.Int("n"))
	if _, err := sdk.Exec(`INSERT INTO pledges (id, backer_id, campaign_id, tier_id, amount, status, shipping_address, reward_status, created_at) VALUES (?, ?, ?, ?, ?, 'active', ?, 'pending', ?)`,
		id, args.BackerID, c.String("id"), t.String("id"), round2(args.Amount), addr, sdk.Now().UTC().Format("2006-01-02T15:04:05Z")); err != nil {
		return noRow(), err
	}
	if _, err := sdk.Exec(`UPDATE tiers SET units_left = units_left - 1 WHERE id = ?`, t.String("id")); err != nil {
		return noRow(), err
	}
	if _, err := sdk.Exec(`UPDATE campaigns SET raised = ROUND(raised + ?, 2) WHERE id = ?`, round2(args.Amount), c.String("id")); err != nil {
		return noRow(), err
	}
	return pledgeView(id)
}

type ChangePledgeArgs struct {
	// Backer id
	BackerID string `json:"backer_id"`
	// Pledge id
	PledgeID string `json:"pledge_id"`
	// New amount (default: unchanged)
	Amount *float64 `json:"amount,omitempty"`
	// New tier name (default: unchanged)
	Tier string `json:"tier,omitempty"`
}

// ChangePledge changes the amount and/or tier of an active pledge while the campaign is live; the amount must reach the tier's minimum.
func ChangePledge(args ChangePledgeArgs) (sdk.Row, error) {
	p, err := ownPledge(args.BackerID, args.PledgeID)
	if err != nil {
		return noRow(), err
	}
	if p.String("status") != "active" {
		return noRow(), fmt.Errorf("pledge %s is %s", p.String("id"), p.String("status"))
	}
	c, err := campaignByTitle(p.String("title"))
	if err != nil {
		return noRow(), err
	}
	if !isLive(c) {
		return noRow(), fmt.Errorf("campaign %s has ended: its pledges can no longer change", c.String("title"))
	}
	tier, err := sdk.QueryRow(`SELECT * FROM tiers WHERE id = ?`, p.String("tier_id"))
	if err != nil {
		return noRow(), err
	}
	if strings.TrimSpace(args.Tier) != "" && !strings.EqualFold(strings.TrimSpace(args.Tier), tier.String("name")) {
		nt, err := tierByName(c.String("id"), args.Tier)
		if err != nil {
			return noRow(), err
		}
		if nt.Int("units_left") <= 0 {
			return noRow(), fmt.Errorf("the %s tier has no units left", nt.String("name"))
		}
		tier = nt
	}
	amount := p.Float("amount")
	if args.Amount != nil {
		amount = round2(*args.Amount)
	}
	if amount < tier.Float("min_amount") {
		return noRow(), fmt.Errorf("the %s tier needs at least %.2f", tier.String("name"), tier.Float("min_amount"))
	}
	if tier.String("id") != p.String("tier_id") {
		if _, err := sdk.Exec(`UPDATE tiers SET units_left = units_left + 1 WHERE id = ?`, p.String("tier_id")); err != nil {
			return noRow(), err
		}
		if _, err := sdk.Exec(`UPDATE tiers SET units_left = units_left - 1 WHERE id = ?`, tier.String("id")); err != nil {
			return noRow(), err
		}
	}
	if _, err := sdk.Exec(`UPDATE pledges SET amount = ?, tier_id = ? WHERE id = ?`, amount, tier.String("id"), p.String("id")); err != nil {
		return noRow(), err
	}
	if _, err := sdk.Exec(`UPDATE campaigns SET raised = ROUND(raised + ?, 2) WHERE id = ?`, round2(amount-p.Float("amount")), c.String("id")); err != nil {
		return noRow(), err
	}
	return pledgeView(p.String("id"))
}

type PledgeArgs struct {
	// Backer id
	BackerID string `json:"backer_id"`
	// Pledge id
	PledgeID string `json:"pledge_id"`
}

// CancelPledge cancels an active pledge while its campaign is live, freeing its unit and removing its amount from the campaign.
func CancelPledge(args PledgeArgs) (map[string]any, error) {
	p, err := ownPledge(args.BackerID, args.PledgeID)
	if err != nil {
		return nil, err
	}
	if p.String("status") != "active" {
		return nil, fmt.Errorf("pledge %s is %s: it cannot be cancelled", p.String("id"), p.String("status"))
	}
	c, err := campaignByTitle(p.String("title"))
	if err != nil {
		return nil, err
	}
	if !isLive(c) {
		return nil, fmt.Errorf("campaign %s has ended: its pledges can no longer be cancelled", c.String("title"))
	}
	if _, err := sdk.Exec(`UPDATE pledges SET status = 'cancelled' WHERE id = ?`, p.String("id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE tiers SET units_left = units_left + 1 WHERE id = ?`, p.String("tier_id")); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE campaigns SET raised = ROUND(raised - ?, 2) WHERE id = ?`, p.Float("amount"), c.String("id")); err != nil {
		return nil, err
	}
	return map[string]any{"pledge_id": p.String("id"), "campaign": c.String("title"), "status": "cancelled", "amount": p.Float("amount")}, nil
}

type UpdateShippingAddressArgs struct {
	// Backer id
	BackerID string `json:"backer_id"`
	// Pledge id
	PledgeID string `json:"pledge_id"`
	// The full new address
	Address string `json:"address"`
}

// UpdateShippingAddress sets the shipping address of a pledge whose reward has not shipped (not for cancelled pledges).
func UpdateShippingAddress(args UpdateShippingAddressArgs) (sdk.Row, error) {
	p, err := ownPledge(args.BackerID, args.PledgeID)
	if err != nil {
		return noRow(), err
	}
	if p.String("status") == "cancelled" {
		return noRow(), fmt.Errorf("pledge %s is cancelled", p.String("id"))
	}
	if p.String("reward_status") == "shipped" {
		return noRow(), fmt.Errorf("the reward of pledge %s has already shipped", p.String("id"))
	}
	addr := strings.TrimSpace(args.Address)
	if addr == "" {
		return noRow(), errors.New("the address is empty")
	}
	if _, err := sdk.Exec(`UPDATE pledges SET shipping_address = ? WHERE id = ?`, addr, p.String("id")); err != nil {
		return noRow(), err
	}
	return pledgeView(p.String("id"))
}
