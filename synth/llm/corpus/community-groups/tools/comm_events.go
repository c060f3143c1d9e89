package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// ListGroupEventsArgs are the arguments of list_group_events.
type ListGroupEventsArgs struct {
	// The group's id from find_group.
	GroupID string `json:"group_id"`
	// Only events that have not started yet.
	UpcomingOnly bool `json:"upcoming_only,omitempty"`
}

// ListGroupEvents lists a group's events with their free places.
func ListGroupEvents(args ListGroupEventsArgs) (sdk.Rows, error) {
	g, err := groupRow(args.GroupID)
	if err != nil {
		return sdk.Rows{}, err
	}
	after := ""
	if args.UpcomingOnly {
		after = sdk.Now().UTC().Format(time.RFC3339)
	}
	return sdk.Query(`SELECT e.id, e.title, e.starts_at, e.location, e.capacity,
		(SELECT count(*) FROM rsvps r WHERE r.event_id = e.id AND r.status = 'going') AS going,
		e.capacity - (SELECT count(*) FROM rsvps r WHERE r.event_id = e.id AND r.status = 'going') AS free_places
		FROM events e WHERE e.group_id = ? AND e.starts_at > ? ORDER BY e.starts_at`, g.String("id"), after)
}

// RsvpArgs name a member and an event.
type RsvpArgs struct {
	// The member's id from verify_member.
	MemberID string `json:"member_id"`
	// The event's id from list_group_events.
	EventID string `json:"event_id"`
}

func eventRow(id string) (sdk.Row, error) {
	e, err := sdk.QueryRow(`SELECT e.id, e.group_id, e.title, e.starts_at, e.capacity,
		(SELECT count(*) FROM rsvps r WHERE r.event_id = e.id AND r.status = 'going') AS going FROM events e WHERE e.id = ?`, strings.TrimSpace(id))
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("no event has the id %s", id)
	}
	return e, err
}

// RsvpEvent records that the member is going to an upcoming event of one of their groups.
func RsvpEvent(args RsvpArgs) (sdk.Row, error) {
	if err := memberExists(args.MemberID); err != nil {
		return sdk.Row{}, err
	}
	e, err := eventRow(args.EventID)
	if err != nil {
		return sdk.Row{}, err
	}
	if in, err := isMember(e.String("group_id"), args.MemberID); err != nil {
		return sdk.Row{}, err
	} else if !in {
		return sdk.Row{}, fmt.Errorf("the member does not belong to the group of %s: join it first", e.String("title"))
	}
	starts, err := time.Parse(time.RFC3339, e.String("starts_at"))
	if err != nil {
		return sdk.Row{}, err
	}
	if !sdk.Now().Before(starts) {
		return sdk.Row{}, fmt.Errorf("%s has already started", e.String("title"))
	}
	r, err := sdk.QueryRow(`SELECT id, status FROM rsvps WHERE event_id = ? AND member_id = ? ORDER BY id DESC LIMIT 1`, e.String("id"), args.MemberID)
	if err == nil && r.String("status") == "going" {
		return sdk.Row{}, fmt.Errorf("the member is already going to %s", e.String("title"))
	} else if err != nil && err != sdk.ErrNoRows {
		return sdk.Row{}, err
	}
	if e.Int("going") >= e.Int("capacity") {
		return sdk.Row{}, fmt.Errorf("%s is full (%d places)", e.String("title"), e.Int("capacity"))
	}
	now := sdk.Now().UTC().Format(time.RFC3339)
	var id int64
	if err == nil {
		if _, err := sdk.Exec(`UPDATE rsvps SET status = 'going', responded_at = ? WHERE id = ?`, now, r.Int("id")); err != nil {
			return sdk.Row{}, err
		}
		id = r.Int("id")
	} else {
		res, err := sdk.Exec(`INSERT INTO rsvps (event_id, member_id, status, responded_at) VALUES (?, ?, 'going', ?)`, e.String("id"), args.MemberID, now)
		if err != nil {
			return sdk.Row{}, err
		}
		id = res.LastInsertID
	}
	return sdk.QueryRow(`SELECT id, event_id, member_id, status, responded_at FROM rsvps WHERE id = ?`, id)
}

// CancelRsvp cancels the member's going RSVP to an event.
func CancelRsvp(args RsvpArgs) (sdk.Row, error) {
	if err := memberExists(args.MemberID); err != nil {
		return sdk.Row{}, err
	}
	e, err := eventRow(args.EventID)
	if err != nil {
		return sdk.Row{}, err
	}
	r, err := sdk.QueryRow(`SELECT id FROM rsvps WHERE event_id = ? AND member_id = ? AND status = 'going'`, e.String("id"), args.MemberID)
	if err == sdk.ErrNoRows {
		return sdk.Row{}, fmt.Errorf("the member has no RSVP going to %s", e.String("title"))
	} else if err != nil {
		return sdk.Row{}, err
	}
	if _, err := sdk.Exec(`UPDATE rsvps SET status = 'cancelled', responded_at = ? WHERE id = ?`, sdk.Now().UTC().Format(time.RFC3339), r.Int("id")); err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, event_id, member_id, status, responded_at FROM rsvps WHERE id = ?`, r.Int("id"))
}

// CreatePostArgs are the arguments of create_post.
type CreatePostArgs struct {
	// The member's id from verify_member.
	MemberID string `json:"member_id"`
	// The group's id from find_group.
	GroupID string `json:"group_id"`
	// The text of the post, as the member gave it.
	Body string `json:"body"`
}

// CreatePost posts a message to a group the member belongs to.
func CreatePost(args CreatePostArgs) (sdk.Row, error) {
	if err := memberExists(args.MemberID); err != nil {
		return sdk.Row{}, err
	}
	g, err := groupRow(args.GroupID)
	if err != nil {
		return sdk.Row{}, err
	}
	if in, err := isMember(g.String("id"), args.MemberID); err != nil {
		return sdk.Row{}, err
	} else if !in {
		return sdk.Row{}, fmt.Errorf("the member does not belong to %s", g.String("name"))
	}
	body := strings.TrimSpace(args.Body)
	if body == "" || len(body) > 1000 {
		return sdk.Row{}, fmt.Errorf("a post needs 1 to 1000 characters of text")
	}
	res, err := sdk.Exec(`INSERT INTO posts (group_id, member_id, body, posted_at) VALUES (?, ?, ?, ?)`, g.String("id"), args.MemberID, body, sdk.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return sdk.Row{}, err
	}
	return sdk.QueryRow(`SELECT id, group_id, member_id, body, posted_at FROM posts WHERE id = ?`, res.LastInsertID)
}
