package llmreplay

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
)

// tempPath matches a path under a temporary directory: build errors name
// the scratch directory they ran in, which differs from run to run.
var tempPath = regexp.MustCompile(`/tmp/[^\s:"'\x60)]+`)

// RequestKey identifies a chat-completions request by what the model reads: each
// message's role, content and tool calls (name and arguments, re-encoded
// canonically), with paths under /tmp replaced. Call ids, the model name,
// sampling settings and the tools offered are left out, so the same
// conversation replays whatever the client chose for them. A body that is
// not a chat request has the key "".
func RequestKey(body []byte) string {
	var req struct {
		Messages []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		return ""
	}
	h := sha256.New()
	for _, m := range req.Messages {
		var content string
		if err := json.Unmarshal(m.Content, &content); err != nil {
			content = string(m.Content) // null, or content parts
		}
		h.Write([]byte(m.Role))
		h.Write([]byte{0})
		h.Write([]byte(tempPath.ReplaceAllString(content, "/tmp/X")))
		h.Write([]byte{0})
		for _, c := range m.ToolCalls {
			h.Write([]byte(c.Function.Name))
			h.Write([]byte{0})
			h.Write(canonical(c.Function.Arguments))
			h.Write([]byte{0})
		}
		h.Write([]byte{1})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// canonical re-encodes JSON arguments with sorted keys and no spaces (Go
// maps marshal sorted); text that is not JSON is kept as it is.
func canonical(args string) []byte {
	var v any
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		return []byte(args)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte(args)
	}
	return bytes.TrimSpace(b.Bytes())
}

// Keyed is the entry of index recorded for the request whose RequestKey
// is key: of several, the one least used so far (used counts answers per
// entry file), so a conversation asked twice replays its answers in turn.
// It is -1 when key is empty or no entry has it.
func Keyed(index []Entry, key string, used map[string]int) int {
	best := -1
	for i, e := range index {
		if key != "" && e.Key == key && (best < 0 || used[e.File] < used[index[best].File]) {
			best = i
		}
	}
	return best
}
