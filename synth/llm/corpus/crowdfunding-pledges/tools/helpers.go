package tools

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

func noRow() sdk.Row {
	var r sdk.Row
	return r
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func requireBacker(id string) error {
	_, err := sdk.QueryRow(`SELECT id FROM backers WHERE id = ?`, id)
	if errors.Is(err, sdk.ErrNoRows) {
		return fmt.Errorf("backer %s not found", id)
	}
	return err
}

func campaignByTitle(title string) (sdk.Row, error) {
	c, err := sdk.QueryRow(`SELECT * FROM campaigns WHERE lower(title) = lower(?)`, strings.TrimSpace(title))
	if errors.Is(err, sdk.ErrNoRows) {
		return c, fmt.Errorf("campaign %q not found", title)
	}
	return c, err
}

// isLive says whether a campaign still takes pledge changes: status live and its end not passed.
func isLive(c sdk.Row) bool {
	if c.String("status") != "live" {
		return false
	}
	end, err := time.Parse(time.RFC3339, c.String("ends_at"))
	return err == nil && end.After(sdk.Now())
}

func tierByName(campaignID, name string) (sdk.Row, error) {
	t, err := sdk.QueryRow(`SELECT * FROM tiers WHERE campaign_id = ? AND lower(name) = lower(?)`, campaignID, strings.TrimSpace(name))
	if errors.Is(err, sdk.ErrNoRows) {
		return t, fmt.Errorf("the campaign has no tier %q", name)
	}
	return t, err
}

// ownPledge loads one of the backer's pledges with its campaign.
func ownPledge(backerID, pledgeID string) (sdk.Row, error) {
	if err := requireBacker(backerID); err != nil {
		return noRow(), err
	}
	p, err := sdk.QueryRow(`SELECT p.*, c.status AS campaign_status, c.ends_at, c.title FROM pledges p JOIN campaigns c ON c.id = p.campaign_id WHERE p.id = ? AND p.backer_id = ?`, strings.TrimSpace(pledgeID), backerID)
	if errors.Is(err, sdk.ErrNoRows) {
		return p, fmt.Errorf("pledge %s not found for backer %s", pledgeID, backerID)
	}
	return p, err
}

func pledgeView(id string) (sdk.Row, error) {
	return sdk.QueryRow(`SELECT p.id AS pledge_id, c.title AS campaign, t.name AS tier, p.amount, p.status, p.shipping_address, p.reward_status
		FROM pledges p JOIN campaigns c ON c.id = p.campaign_id JOIN tiers t ON t.id = p.tier_id WHERE p.id = ?`, id)
}
