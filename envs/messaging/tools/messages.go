package tools

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

const messageColumns = `m.id AS message_id, m.conversation_id, m.sender_id, a.display_name AS sender,
	CASE WHEN m.deleted = 1 THEN '[deleted]' ELSE m.body END AS body, m.sent_at, m.edited_at,
	m.deleted = 1 AS deleted,
	(m.sender_id = 1 OR EXISTS (SELECT 1 FROM read_receipts r WHERE r.message_id = m.id AND r.account_id = 1)) AS read_by_me,
	(SELECT COUNT(*) FROM read_receipts r WHERE r.message_id = m.id AND r.account_id <> m.sender_id) AS read_count`

// ReadMessages returns the latest messages of a conversation, oldest first.
// It does not mark anything as read (use mark_conversation_read).
func ReadMessages(args ReadMessagesArgs) (map[string]any, error) {
	if _, err := getConversation(args.ConversationID); err != nil {
		return nil, err
	}
	limit := args.Limit
	if limit <= 0 {
		limit = 20
	}
	if limit > 100 {
		limit = 100
	}
	sql := `SELECT * FROM (SELECT ` + messageColumns + ` FROM messages m JOIN accounts a ON a.id = m.sender_id WHERE m.conversation_id = ?`
	params := []any{args.ConversationID}
	if args.BeforeMessageID > 0 {
		sql += ` AND m.id < ?`
		params = append(params, args.BeforeMessageID)
	}
	sql += ` ORDER BY m.sent_at DESC, m.id DESC LIMIT ?) ORDER BY sent_at, message_id`
	params = append(params, limit)
	rows, err := sdk.Query(sql, params...)
	if err != nil {
		return nil, err
	}
	total, err := sdk.QueryRow(`SELECT COUNT(*) AS n FROM messages WHERE conversation_id = ?`, args.ConversationID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"conversation_id": args.ConversationID, "messages": rows, "total_messages": total.Int("n")}, nil
}

type ReadMessagesArgs struct {
	// The conversation id.
	ConversationID int `json:"conversation_id"`
	// How many of the latest messages to return (default 20, at most 100).
	Limit int `json:"limit,omitempty"`
	// Only messages with an id below this one (for paging back).
	BeforeMessageID int `json:"before_message_id,omitempty"`
}

// SearchMessages searches the text of messages in your conversations
// (case-insensitive substring), newest first. Deleted messages are skipped.
func SearchMessages(args SearchMessagesArgs) (sdk.Rows, error) {
	if strings.TrimSpace(args.Query) == "" {
		return sdk.Rows{}, fmt.Errorf("query must not be empty")
	}
	sql := `SELECT ` + messageColumns + `, ` + conversationNameSQL + ` AS conversation_name
		FROM messages m JOIN accounts a ON a.id = m.sender_id JOIN conversations c ON c.id = m.conversation_id
		WHERE m.deleted = 0 AND m.body LIKE ? ESCAPE '\'
		AND EXISTS (SELECT 1 FROM participants p WHERE p.conversation_id = m.conversation_id AND p.account_id = ?)`
	params := []any{likePattern(args.Query), meID}
	if args.ConversationID > 0 {
		sql += ` AND m.conversation_id = ?`
		params = append(params, args.ConversationID)
	}
	if args.SenderAccountID > 0 {
		sql += ` AND m.sender_id = ?`
		params = append(params, args.SenderAccountID)
	}
	sql += ` ORDER BY m.sent_at DESC, m.id DESC LIMIT 50`
	return sdk.Query(sql, params...)
}

type SearchMessagesArgs struct {
	// Text to look for in message bodies.
	Query string `json:"query"`
	// Only in this conversation.
	ConversationID int `json:"conversation_id,omitempty"`
	// Only messages sent by this account.
	SenderAccountID int `json:"sender_account_id,omitempty"`
}

// SendMessage posts a message to a conversation now. You must be a
// participant, and you cannot message a blocked person directly. Sending
// clears your saved draft in that conversation.
func SendMessage(args SendMessageArgs) (map[string]any, error) {
	if err := checkBody(args.Body); err != nil {
		return nil, err
	}
	if _, err := checkCanPost(args.ConversationID); err != nil {
		return nil, err
	}
	ts := now()
	res, err := sdk.Exec(`INSERT INTO messages (conversation_id, sender_id, body, sent_at) VALUES (?, ?, ?, ?)`,
		args.ConversationID, meID, args.Body, ts)
	if err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`DELETE FROM drafts WHERE conversation_id = ?`, args.ConversationID); err != nil {
		return nil, err
	}
	return map[string]any{"message_id": res.LastInsertID, "conversation_id": args.ConversationID, "body": args.Body, "sent_at": ts}, nil
}

type SendMessageArgs struct {
	// The conversation to post to.
	ConversationID int `json:"conversation_id"`
	// The message text, sent exactly as given.
	Body string `json:"body"`
}

// EditMessage replaces the text of one of your own messages.
func EditMessage(args EditMessageArgs) (map[string]any, error) {
	if err := checkBody(args.Body); err != nil {
		return nil, err
	}
	msg, err := ownMessage(args.MessageID)
	if err != nil {
		return nil, err
	}
	if _, err := checkCanPost(int(msg.Int("conversation_id"))); err != nil {
		return nil, err
	}
	if msg.String("body") == args.Body {
		return nil, fmt.Errorf("the new text is the same as the current text")
	}
	ts := now()
	if _, err := sdk.Exec(`UPDATE messages SET body = ?, edited_at = ? WHERE id = ?`, args.Body, ts, args.MessageID); err != nil {
		return nil, err
	}
	return map[string]any{"message_id": args.MessageID, "body": args.Body, "edited_at": ts}, nil
}

type EditMessageArgs struct {
	// The id of your message.
	MessageID int `json:"message_id"`
	// The full new text.
	Body string `json:"body"`
}

// DeleteMessage deletes one of your own messages for everyone (it shows as
// "[deleted]").
func DeleteMessage(args DeleteMessageArgs) (map[string]any, error) {
	if _, err := ownMessage(args.MessageID); err != nil {
		return nil, err
	}
	if _, err := sdk.Exec(`UPDATE messages SET deleted = 1 WHERE id = ?`, args.MessageID); err != nil {
		return nil, err
	}
	return map[string]any{"message_id": args.MessageID, "deleted": true}, nil
}

type DeleteMessageArgs struct {
	// The id of your message.
	MessageID int `json:"message_id"`
}

// MarkConversationRead marks every unread message in a conversation as read
// by you.
func MarkConversationRead(args ConversationArgs) (map[string]any, error) {
	if _, err := getConversation(args.ConversationID); err != nil {
		return nil, err
	}
	res, err := sdk.Exec(`INSERT INTO read_receipts (message_id, account_id, read_at)
		SELECT m.id, ?, ? FROM messages m WHERE m.conversation_id = ? AND m.sender_id <> ? AND m.deleted = 0
		AND NOT EXISTS (SELECT 1 FROM read_receipts r WHERE r.message_id = m.id AND r.account_id = ?)`,
		meID, now(), args.ConversationID, meID, meID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"conversation_id": args.ConversationID, "marked_read": res.RowsAffected}, nil
}

// SaveDraft saves (or replaces) your unsent draft in a conversation. An empty
// body discards the draft.
func SaveDraft(args SaveDraftArgs) (map[string]any, error) {
	if _, err := getConversation(args.ConversationID); err != nil {
		return nil, err
	}
	if strings.TrimSpace(args.Body) == "" {
		res, err := sdk.Exec(`DELETE FROM drafts WHERE conversation_id = ?`, args.ConversationID)
		if err != nil {
			return nil, err
		}
		if res.RowsAffected == 0 {
			return nil, fmt.Errorf("there is no draft in conversation %d to discard", args.ConversationID)
		}
		return map[string]any{"conversation_id": args.ConversationID, "draft": nil}, nil
	}
	if err := checkBody(args.Body); err != nil {
		return nil, err
	}
	ts := now()
	if _, err := sdk.Exec(`INSERT INTO drafts (conversation_id, body, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (conversation_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`,
		args.ConversationID, args.Body, ts); err != nil {
		return nil, err
	}
	return map[string]any{"conversation_id": args.ConversationID, "draft": args.Body, "updated_at": ts}, nil
}

type SaveDraftArgs struct {
	// The conversation id.
	ConversationID int `json:"conversation_id"`
	// The draft text; an empty string discards the current draft.
	Body string `json:"body"`
}

// ownMessage loads a non-deleted message sent by the logged-in user.
func ownMessage(id int) (sdk.Row, error) {
	msg, err := sdk.QueryRow(`SELECT id, conversation_id, sender_id, body, deleted FROM messages WHERE id = ?`, id)
	if err == sdk.ErrNoRows {
		return msg, fmt.Errorf("message %d not found", id)
	}
	if err != nil {
		return msg, err
	}
	if _, err := getConversation(int(msg.Int("conversation_id"))); err != nil {
		return msg, fmt.Errorf("message %d not found", id)
	}
	if msg.Int("sender_id") != meID {
		return msg, fmt.Errorf("message %d was not sent by you: you can only change your own messages", id)
	}
	if msg.Bool("deleted") {
		return msg, fmt.Errorf("message %d is deleted", id)
	}
	return msg, nil
}
