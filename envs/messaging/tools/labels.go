package tools

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/sdk"
)

// ListLabels lists your conversation labels with how many conversations carry each.
func ListLabels() (sdk.Rows, error) {
	return sdk.Query(`SELECT l.id AS label_id, l.name, l.color,
		(SELECT COUNT(*) FROM conversation_labels cl WHERE cl.label_id = l.id) AS conversation_count
		FROM labels l ORDER BY l.name`)
}

// CreateLabel creates a new conversation label. Names are unique (case-insensitive).
func CreateLabel(args CreateLabelArgs) (map[string]any, error) {
	name := strings.TrimSpace(args.Name)
	if name == "" || len(name) > 40 {
		return nil, fmt.Errorf("label name must be 1 to 40 characters")
	}
	if l, err := labelByName(name); err == nil {
		return nil, fmt.Errorf("a label named %q already exists", l.String("name"))
	}
	color := args.Color
	if color == "" {
		color = "gray"
	}
	res, err := sdk.Exec(`INSERT INTO labels (name, color) VALUES (?, ?)`, name, color)
	if err != nil {
		return nil, err
	}
	return map[string]any{"label_id": res.LastInsertID, "name": name, "color": color}, nil
}

type CreateLabelArgs struct {
	// The label's name, such as "Urgent".
	Name string `json:"name"`
	// The label's color (default gray).
	Color string `json:"color,omitempty" enum:"red,orange,yellow,green,blue,purple,gray"`
}

// LabelConversation puts a label on a conversation.
func LabelConversation(args LabelConversationArgs) (map[string]any, error) {
	if _, err := getConversation(args.ConversationID); err != nil {
		return nil, err
	}
	l, err := labelByName(args.Label)
	if err != nil {
		return nil, err
	}
	if _, err := sdk.QueryRow(`SELECT 1 FROM conversation_labels WHERE conversation_id = ? AND label_id = ?`, args.ConversationID, l.Int("id")); err == nil {
		return nil, fmt.Errorf("conversation %d already has label %q", args.ConversationID, l.String("name"))
	} else if err != sdk.ErrNoRows {
		return nil, err
	}
	if _, err := sdk.Exec(`INSERT INTO conversation_labels (conversation_id, label_id) VALUES (?, ?)`, args.ConversationID, l.Int("id")); err != nil {
		return nil, err
	}
	return map[string]any{"conversation_id": args.ConversationID, "label": l.String("name"), "status": "labeled"}, nil
}

// UnlabelConversation takes a label off a conversation.
func UnlabelConversation(args LabelConversationArgs) (map[string]any, error) {
	if _, err := getConversation(args.ConversationID); err != nil {
		return nil, err
	}
	l, err := labelByName(args.Label)
	if err != nil {
		return nil, err
	}
	res, err := sdk.Exec(`DELETE FROM conversation_labels WHERE conversation_id = ? AND label_id = ?`, args.ConversationID, l.Int("id"))
	if err != nil {
		return nil, err
	}
	if res.RowsAffected == 0 {
		return nil, fmt.Errorf("conversation %d does not have label %q", args.ConversationID, l.String("name"))
	}
	return map[string]any{"conversation_id": args.ConversationID, "label": l.String("name"), "status": "unlabeled"}, nil
}

type LabelConversationArgs struct {
	// The conversation id.
	ConversationID int `json:"conversation_id"`
	// The label's name (see list_labels).
	Label string `json:"label"`
}

// labelByName finds a label by name (case-insensitive).
func labelByName(name string) (sdk.Row, error) {
	row, err := sdk.QueryRow(`SELECT id, name, color FROM labels WHERE name = ?`, strings.TrimSpace(name))
	if err == sdk.ErrNoRows {
		return row, fmt.Errorf("no label named %q", strings.TrimSpace(name))
	}
	return row, err
}
