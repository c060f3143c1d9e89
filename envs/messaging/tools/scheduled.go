package tools

import (
	"fmt"

	"github.com/wasmenv/wasmenv/sdk"
)

// ScheduleMessage schedules a message to be sent to a conversation later.
// The same rules as send_message apply; send_at must be in the future.
func ScheduleMessage(args ScheduleMessageArgs) (map[string]any, error) {
	if err := checkBody(args.Body); err != nil {
		return nil, err
	}
	t, err := parseTime(args.SendAt)
	if err != nil {
		return nil, err
	}
	if !t.After(sdk.Now()) {
		return nil, fmt.Errorf("send_at %s is not in the future (it is now %s)", t.Format(timeLayout), now())
	}
	if t.Sub(sdk.Now()).Hours() > 24*365 {
		return nil, fmt.Errorf("messages can be scheduled at most one year ahead")
	}
	if _, err := checkCanPost(args.ConversationID); err != nil {
		return nil, err
	}
	sendAt := t.Format(timeLayout)
	res, err := sdk.Exec(`INSERT INTO scheduled_messages (conversation_id, body, send_at, status, created_at) VALUES (?, ?, ?, 'pending', ?)`,
		args.ConversationID, args.Body, sendAt, now())
	if err != nil {
		return nil, err
	}
	return map[string]any{"scheduled_id": res.LastInsertID, "conversation_id": args.ConversationID, "body": args.Body, "send_at": sendAt, "status": "pending"}, nil
}

type ScheduleMessageArgs struct {
	// The conversation to post to.
	ConversationID int `json:"conversation_id"`
	// The message text, sent exactly as given.
	Body string `json:"body"`
	// When to send, RFC 3339 (such as 2024-06-10T08:00:00Z; an offset like -07:00 is converted to UTC).
	SendAt string `json:"send_at"`
}

// ListScheduledMessages lists scheduled messages, soonest first.
func ListScheduledMessages(args ListScheduledMessagesArgs) (sdk.Rows, error) {
	sql := `SELECT s.id AS scheduled_id, s.conversation_id, ` + conversationNameSQL + ` AS conversation_name,
		s.body, s.send_at, s.status, s.created_at
		FROM scheduled_messages s JOIN conversations c ON c.id = s.conversation_id WHERE 1 = 1`
	var params []any
	if args.Status != "" {
		sql += ` AND s.status = ?`
		params = append(params, args.Status)
	}
	if args.ConversationID > 0 {
		sql += ` AND s.conversation_id = ?`
		params = append(params, args.ConversationID)
	}
	sql += ` ORDER BY s.send_at, s.id`
	return sdk.Query(sql, params...)
}

type ListScheduledMessagesArgs struct {
	// Only messages with this status.
	Status string `json:"status,omitempty" enum:"pending,sent,cancelled"`
	// Only messages for this conversation.
	ConversationID int `json:"conversation_id,omitempty"`
}

// CancelScheduledMessage cancels a pending scheduled message.
func CancelScheduledMessage(args CancelScheduledMessageArgs) (map[string]any, error) {
	row, err := sdk.QueryRow(`SELECT id, status, body FROM scheduled_messages WHERE id = ?`, args.ScheduledID)
	if err == sdk.ErrNoRows {
		return nil, fmt.Errorf("scheduled message %d not found", args.ScheduledID)
	}
	if err != nil {
		return nil, err
	}
	if row.String("status") != "pending" {
		return nil, fmt.Errorf("scheduled message %d is %s, only pending messages can be cancelled", args.ScheduledID, row.String("status"))
	}
	if _, err := sdk.Exec(`UPDATE scheduled_messages SET status = 'cancelled' WHERE id = ?`, args.ScheduledID); err != nil {
		return nil, err
	}
	return map[string]any{"scheduled_id": args.ScheduledID, "body": row.String("body"), "status": "cancelled"}, nil
}

type CancelScheduledMessageArgs struct {
	// The scheduled message id (see list_scheduled_messages).
	ScheduledID int `json:"scheduled_id"`
}
