package tools

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// ListConversations lists your conversations, most recent activity first, with
// their name (group title or the other person's name), unread count, labels
// and last message. Archived conversations are hidden unless asked for.
func ListConversations(args ListConversationsArgs) (sdk.Rows, error) {
	sql := `SELECT * FROM (SELECT c.id AS conversation_id, c.kind, ` + conversationNameSQL + ` AS name,
		(SELECT COUNT(*) FROM participants p WHERE p.conversation_id = c.id) AS participant_count,
		` + unreadSQL + ` AS unread_count,
		COALESCE((SELECT GROUP_CONCAT(name, ', ') FROM (SELECT l.name FROM conversation_labels cl JOIN labels l ON l.id = cl.label_id
			WHERE cl.conversation_id = c.id ORDER BY l.name)), '') AS labels,
		c.archived = 1 AS archived, c.muted = 1 AS muted,
		(SELECT m.sent_at FROM messages m WHERE m.conversation_id = c.id ORDER BY m.sent_at DESC, m.id DESC LIMIT 1) AS last_message_at,
		(SELECT CASE WHEN m.deleted = 1 THEN '[deleted]' ELSE a.display_name || ': ' || SUBSTR(m.body, 1, 80) END
			FROM messages m JOIN accounts a ON a.id = m.sender_id WHERE m.conversation_id = c.id ORDER BY m.sent_at DESC, m.id DESC LIMIT 1) AS last_message
		FROM conversations c JOIN participants me ON me.conversation_id = c.id AND me.account_id = ?
		WHERE 1 = 1`
	params := []any{meID}
	if !args.IncludeArchived {
		sql += ` AND c.archived = 0`
	}
	if l := strings.TrimSpace(args.Label); l != "" {
		if _, err := labelByName(l); err != nil {
			return sdk.Rows{}, err
		}
		sql += ` AND c.id IN (SELECT cl.conversation_id FROM conversation_labels cl JOIN labels l ON l.id = cl.label_id WHERE l.name = ?)`
		params = append(params, l)
	}
	if args.Kind != "" {
		sql += ` AND c.kind = ?`
		params = append(params, args.Kind)
	}
	sql += `) WHERE 1 = 1`
	if args.UnreadOnly {
		sql += ` AND unread_count > 0`
	}
	sql += ` ORDER BY last_message_at IS NULL, last_message_at DESC, conversation_id`
	return sdk.Query(sql, params...)
}

type ListConversationsArgs struct {
	// Only conversations with this label (by name, such as "Work").
	Label string `json:"label,omitempty"`
	// Only direct or only group conversations.
	Kind string `json:"kind,omitempty" enum:"direct,group"`
	// Only conversations with unread messages.
	UnreadOnly bool `json:"unread_only,omitempty"`
	// Also list archived conversations.
	IncludeArchived bool `json:"include_archived,omitempty"`
}

// GetConversation returns a conversation's details: participants with their
// roles, labels, your saved draft and pending scheduled messages.
func GetConversation(args ConversationArgs) (map[string]any, error) {
	if _, err := getConversation(args.ConversationID); err != nil {
		return nil, err
	}
	conv, err := sdk.QueryRow(`SELECT c.id AS conversation_id, c.kind, `+conversationNameSQL+` AS name, c.created_at,
		(SELECT display_name FROM accounts WHERE id = c.created_by) AS created_by, c.archived = 1 AS archived, c.muted = 1 AS muted,
		`+unreadSQL+` AS unread_count FROM conversations c WHERE c.id = ?`, args.ConversationID)
	if err != nil {
		return nil, err
	}
	parts, err := sdk.Query(`SELECT p.account_id, a.display_name, a.username, p.role, p.joined_at,
		EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = p.account_id) AS blocked_by_you
		FROM participants p JOIN accounts a ON a.id = p.account_id WHERE p.conversation_id = ? ORDER BY p.role, a.display_name`, args.ConversationID)
	if err != nil {
		return nil, err
	}
	labels, err := sdk.Query(`SELECT l.name FROM conversation_labels cl JOIN labels l ON l.id = cl.label_id
		WHERE cl.conversation_id = ? ORDER BY l.name`, args.ConversationID)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, labels.Len())
	for _, l := range labels.All() {
		names = append(names, l.String("name"))
	}
	sched, err := sdk.Query(`SELECT id AS scheduled_id, body, send_at FROM scheduled_messages
		WHERE conversation_id = ? AND status = 'pending' ORDER BY send_at, id`, args.ConversationID)
	if err != nil {
		return nil, err
	}
	out := conv.Map()
	out["participants"] = parts
	out["labels"] = names
	out["scheduled_messages"] = sched
	out["draft"] = nil
	if d, err := sdk.QueryRow(`SELECT body, updated_at FROM drafts WHERE conversation_id = ?`, args.ConversationID); err == nil {
		out["draft"] = d
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	return out, nil
}

type ConversationArgs struct {
	// The conversation id (see list_conversations).
	ConversationID int `json:"conversation_id"`
}

// StartDirectConversation opens the one-to-one conversation with an account,
// creating it if there is none yet (an existing one is returned, even if
// archived). Blocked accounts cannot be messaged.
func StartDirectConversation(args StartDirectConversationArgs) (map[string]any, error) {
	if args.AccountID == meID {
		return nil, fmt.Errorf("you cannot start a conversation with yourself")
	}
	acc, err := getAccount(args.AccountID)
	if err != nil {
		return nil, err
	}
	blocked, err := isBlocked(int64(args.AccountID))
	if err != nil {
		return nil, err
	}
	if blocked {
		return nil, fmt.Errorf("you have blocked %s: unblock them before messaging", acc.String("display_name"))
	}
	existing, err := sdk.QueryRow(`SELECT c.id FROM conversations c WHERE c.kind = 'direct'
		AND EXISTS (SELECT 1 FROM participants p WHERE p.conversation_id = c.id AND p.account_id = ?)
		AND EXISTS (SELECT 1 FROM participants p WHERE p.conversation_id = c.id AND p.account_id = ?) ORDER BY c.id LIMIT 1`, meID, args.AccountID)
	if err == nil {
		return map[string]any{"conversation_id": existing.Int("id"), "with": acc.String("display_name"), "created": false}, nil
	}
	if err != sdk.ErrNoRows {
		return nil, err
	}
	ts := now()
	res, err := sdk.Exec(`INSERT INTO conversations (kind, title, created_by, created_at) VALUES ('direct', '', ?, ?)`, meID, ts)
	if err != nil {
		return nil, err
	}
	for _, id := range []int{meID, args.AccountID} {
		if _, err := sdk.Exec(`INSERT INTO participants (conversation_id, account_id, role, joined_at) VALUES (?, ?, 'member', ?)`,
			res.LastInsertID, id, ts); err != nil {
			return nil, err
		}
	}
	return map[string]any{"conversation_id": res.LastInsertID, "with": acc.String("display_name"), "created": true}, nil
}

type StartDirectConversationArgs struct {
	// The account to talk to (see find_accounts; a contact's account_id).
	AccountID int `json:"account_id"`
}

// CreateGroupConversation creates a group conversation with you as its admin
// and the given accounts as members (at least two other people). Blocked
// accounts cannot be added.
func CreateGroupConversation(args CreateGroupConversationArgs) (map[string]any, error) {
	title := strings.TrimSpace(args.Title)
	if title == "" {
		return nil, fmt.Errorf("a group conversation needs a title")
	}
	if len(title) > 80 {
		return nil, fmt.Errorf("title is too long (at most 80 characters)")
	}
	ids := slices.Clone(args.AccountIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	ids = slices.DeleteFunc(ids, func(id int) bool { return id == meID })
	if len(ids) < 2 {
		return nil, fmt.Errorf("a group needs at least two other participants; for one person use start_direct_conversation")
	}
	if len(ids) > 50 {
		return nil, fmt.Errorf("a group can have at most 50 other participants")
	}
	for _, id := range ids {
		if err := checkCanAdd(id); err != nil {
			return nil, err
		}
	}
	ts := now()
	res, err := sdk.Exec(`INSERT INTO conversations (kind, title, created_by, created_at) VALUES ('group', ?, ?, ?)`, title, meID, ts)
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO participants (conversation_id, account_id, role, joined_at) VALUES (?, ?, 'admin', ?)`,
		res.LastInsertID, meID, ts); err != nil {
		return nil, err
	}
	for _, id := range ids {
		if _, err := sdk.Exec(`INSERT INTO participants (conversation_id, account_id, role, joined_at) VALUES (?, ?, 'member', ?)`,
			res.LastInsertID, id, ts); err != nil {
			return nil, err
		}
	}
	return GetConversation(ConversationArgs{ConversationID: int(res.LastInsertID)})
}

type CreateGroupConversationArgs struct {
	// Title of the group conversation.
	Title string `json:"title"`
	// Account ids of the other participants (not yours; see find_accounts).
	AccountIDs []int `json:"account_ids"`
}

// AddParticipant adds an account to a group conversation. Only the group's
// admins can add people, and blocked accounts cannot be added.
func AddParticipant(args ParticipantArgs) (map[string]any, error) {
	conv, err := requireGroupAdmin(args.ConversationID)
	if err != nil {
		return nil, err
	}
	if err := checkCanAdd(args.AccountID); err != nil {
		return nil, err
	}
	if _, err := sdk.QueryRow(`SELECT 1 FROM participants WHERE conversation_id = ? AND account_id = ?`, args.ConversationID, args.AccountID); err == nil {
		return nil, fmt.Errorf("account %d is already in %q", args.AccountID, conv.String("title"))
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO participants (conversation_id, account_id, role, joined_at) VALUES (?, ?, 'member', ?)`,
		args.ConversationID, args.AccountID, now()); err != nil {
		return nil, err
	}
	return GetConversation(ConversationArgs{ConversationID: args.ConversationID})
}

// RemoveParticipant removes someone from a group conversation. Only the
// group's admins can remove people; you cannot remove yourself this way.
func RemoveParticipant(args ParticipantArgs) (map[string]any, error) {
	conv, err := requireGroupAdmin(args.ConversationID)
	if err != nil {
		return nil, err
	}
	if args.AccountID == meID {
		return nil, fmt.Errorf("you cannot remove yourself from %q", conv.String("title"))
	}
	res, err := sdk.Exec(`DELETE FROM participants WHERE conversation_id = ? AND account_id = ?`, args.ConversationID, args.AccountID)
	if err != nil {
		return nil, err
	}
	if res.RowsAffected == 0 {
		return nil, fmt.Errorf("account %d is not a participant of %q", args.AccountID, conv.String("title"))
	}
	return GetConversation(ConversationArgs{ConversationID: args.ConversationID})
}

type ParticipantArgs struct {
	// The group conversation id.
	ConversationID int `json:"conversation_id"`
	// The account to add or remove.
	AccountID int `json:"account_id"`
}

// RenameGroupConversation changes a group conversation's title (admins only).
func RenameGroupConversation(args RenameGroupConversationArgs) (map[string]any, error) {
	if _, err := requireGroupAdmin(args.ConversationID); err != nil {
		return nil, err
	}
	title := strings.TrimSpace(args.Title)
	if title == "" || len(title) > 80 {
		return nil, fmt.Errorf("title must be 1 to 80 characters")
	}
	if _, err := sdk.Exec(`UPDATE conversations SET title = ? WHERE id = ?`, title, args.ConversationID); err != nil {
		return nil, err
	}
	return map[string]any{"conversation_id": args.ConversationID, "title": title}, nil
}

type RenameGroupConversationArgs struct {
	// The group conversation id.
	ConversationID int `json:"conversation_id"`
	// The new title.
	Title string `json:"title"`
}

// ArchiveConversation archives a conversation (hides it from the default
// list) or unarchives it.
func ArchiveConversation(args ArchiveConversationArgs) (map[string]any, error) {
	if _, err := getConversation(args.ConversationID); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE conversations SET archived = ? WHERE id = ?`, args.Archived, args.ConversationID); err != nil {
		return nil, err
	}
	return map[string]any{"conversation_id": args.ConversationID, "archived": args.Archived}, nil
}

type ArchiveConversationArgs struct {
	// The conversation id.
	ConversationID int `json:"conversation_id"`
	// true to archive, false to unarchive.
	Archived bool `json:"archived"`
}

// MuteConversation mutes or unmutes a conversation's notifications.
func MuteConversation(args MuteConversationArgs) (map[string]any, error) {
	if _, err := getConversation(args.ConversationID); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE conversations SET muted = ? WHERE id = ?`, args.Muted, args.ConversationID); err != nil {
		return nil, err
	}
	return map[string]any{"conversation_id": args.ConversationID, "muted": args.Muted}, nil
}

type MuteConversationArgs struct {
	// The conversation id.
	ConversationID int `json:"conversation_id"`
	// true to mute, false to unmute.
	Muted bool `json:"muted"`
}

// checkCanAdd checks that an account exists, is not you and is not blocked.
func checkCanAdd(id int) error {
	if id == meID {
		return fmt.Errorf("you are already in the conversation")
	}
	acc, err := getAccount(id)
	if err != nil {
		return err
	}
	blocked, err := isBlocked(int64(id))
	if err != nil {
		return err
	}
	if blocked {
		return fmt.Errorf("you have blocked %s (account %d): blocked accounts cannot be added", acc.String("display_name"), id)
	}
	return nil
}
