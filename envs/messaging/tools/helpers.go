package tools

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk"
)

// meID is the account of the logged-in user; every tool acts on their behalf.
const meID = 1

// maxBodyLen is the longest message, draft or scheduled message accepted.
const maxBodyLen = 2000

// timeLayout is how timestamps are stored: UTC, second precision.
const timeLayout = "2006-01-02T15:04:05Z"

// now is the episode clock formatted for storage.
func now() string { return sdk.Now().UTC().Format(timeLayout) }

// normalizePhone strips spaces, dashes, dots and parentheses and checks that
// the result is an E.164 number such as +14155550123.
func normalizePhone(s string) (string, error) {
	p := strings.NewReplacer(" ", "", "-", "", ".", "", "(", "", ")", "").Replace(strings.TrimSpace(s))
	if !regexp.MustCompile(`^\+[1-9][0-9]{7,14}$`).MatchString(p) {
		return "", fmt.Errorf("invalid phone number %q: use international format with country code, such as +14155550123", s)
	}
	return p, nil
}

// normalizeEmail lower-cases an address and checks its shape.
func normalizeEmail(s string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(s))
	if !regexp.MustCompile(`^[a-z0-9._%+\-]+@[a-z0-9\-]+(\.[a-z0-9\-]+)*\.[a-z]{2,}$`).MatchString(e) {
		return "", fmt.Errorf("invalid email address %q", s)
	}
	return e, nil
}

// checkBody validates a message, draft or scheduled message text.
func checkBody(body string) error {
	if strings.TrimSpace(body) == "" {
		return fmt.Errorf("message body must not be empty")
	}
	if len(body) > maxBodyLen {
		return fmt.Errorf("message body is too long (%d bytes, at most %d)", len(body), maxBodyLen)
	}
	return nil
}

// parseTime accepts RFC 3339 timestamps and returns them in storage form.
func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, fmt.Errorf("invalid time %q: use RFC 3339 such as 2024-06-10T08:00:00Z", s)
	}
	return t.UTC(), nil
}

// getAccount loads an account by id.
func getAccount(id int) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, username, display_name, phone, email, status_text FROM accounts WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return row, fmt.Errorf("account %d not found", id)
	}
	return row, err
}

// isBlocked reports whether the logged-in user has blocked an account.
func isBlocked(accountID int64) (bool, error) {
	_, err := sdk.QueryRow(`SELECT 1 FROM blocks WHERE account_id = ?`, accountID)
	if err == sdk.ErrNoRows {
		return false, nil
	}
	return err == nil, err
}

// getConversation loads a conversation and checks that the logged-in user
// takes part in it.
func getConversation(id int) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT c.id, c.kind, c.title, c.created_by, c.created_at, c.archived, c.muted,
		(SELECT role FROM participants p WHERE p.conversation_id = c.id AND p.account_id = ?) AS my_role
		FROM conversations c WHERE c.id = ?`, meID, id)
	if err == sdk.ErrNoRows {
		return row, fmt.Errorf("conversation %d not found", id)
	}
	if err != nil {
		return row, err
	}
	if row.IsNull("my_role") {
		return row, fmt.Errorf("you are not a participant of conversation %d", id)
	}
	return row, nil
}

// requireGroupAdmin loads a group conversation the logged-in user administers.
func requireGroupAdmin(id int) (sdk.Row, error) {
	conv, err := getConversation(id)
	if err != nil {
		return conv, err
	}
	if conv.String("kind") != "group" {
		return conv, fmt.Errorf("conversation %d is a direct conversation, not a group", id)
	}
	if conv.String("my_role") != "admin" {
		return conv, fmt.Errorf("only admins of %q can do this, and you are not an admin", conv.String("title"))
	}
	return conv, nil
}

// checkCanPost checks that the logged-in user may post to a conversation: they
// must take part, and a direct conversation's other party must not be blocked.
func checkCanPost(id int) (sdk.Row, error) {
	conv, err := getConversation(id)
	if err != nil {
		return conv, err
	}
	if conv.String("kind") == "direct" {
		other, err := sdk.QueryRow(`SELECT p.account_id, a.display_name FROM participants p JOIN accounts a ON a.id = p.account_id
			WHERE p.conversation_id = ? AND p.account_id <> ?`, id, meID)
		if err != nil && err != sdk.ErrNoRows {
			return conv, err
		}
		if err == nil {
			blocked, err := isBlocked(other.Int("account_id"))
			if err != nil {
				return conv, err
			}
			if blocked {
				return conv, fmt.Errorf("you have blocked %s (account %d): unblock them before messaging", other.String("display_name"), other.Int("account_id"))
			}
		}
	}
	return conv, nil
}

// conversationName is a group's title, or the other party's name for a direct
// conversation.
const conversationNameSQL = `CASE WHEN c.kind = 'group' THEN c.title ELSE COALESCE((SELECT a.display_name FROM participants p JOIN accounts a ON a.id = p.account_id
	WHERE p.conversation_id = c.id AND p.account_id <> 1 ORDER BY p.account_id LIMIT 1), 'Note to self') END`

// unreadSQL counts the messages of conversation c the logged-in user has not read.
const unreadSQL = `(SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id AND m.sender_id <> 1 AND m.deleted = 0
	AND NOT EXISTS (SELECT 1 FROM read_receipts r WHERE r.message_id = m.id AND r.account_id = 1))`

// likePattern makes a case-insensitive LIKE pattern matching a substring.
func likePattern(s string) string {
	s = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(strings.TrimSpace(s))
	return "%" + s + "%"
}
