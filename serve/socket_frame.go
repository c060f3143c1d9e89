package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

// The frames of GET /v1/ws (socket.go). A request is one text or binary
// message holding one JSON object:
//
//	{"id": ANY, "op": "call", "episode": "ep_...", "body": {...}}
//
// and its answer one text message:
//
//	{"id": ANY, "status": 200, "body": {...}}
//
// with "retry_after" (seconds) where the HTTP route would send Retry-After.
// body is byte for byte what the HTTP route would have answered.
//
// A frame may also hold a batch: a JSON array of requests, answered by one
// frame holding the array of their answers, in order, each as if its
// request had come alone. A batch costs one frame read and one frame
// write for all its requests: the transport's cost per call (a write
// syscall, a read, a goroutine woken) divided by the batch's size.

// socketReq is one request frame. Body aliases the frame's bytes.
type socketReq struct {
	ID      json.RawMessage `json:"id"`
	Op      string          `json:"op"`
	Episode string          `json:"episode"`
	Body    json.RawMessage `json:"body"`
}

// decodeSocketReq reads a request frame, refusing unknown keys and
// trailing data. A frame that is valid JSON (valid: checked already, as
// a batch's items are with their batch; else checked here, once for the
// whole frame) of the usual shape is read by parseSocketReq without a
// Decoder and without a depth check of its own (it recurses into nothing;
// the body gets its HTTP route's check, so a body nested too deep is
// answered as the route answers it); any other goes to decodeBytes, its
// nesting bounded one level deeper than a body's, so its errors are
// encoding/json's.
func decodeSocketReq(b []byte, req *socketReq, maxDepth int, valid bool) error {
	b = bytes.TrimSpace(b)
	if (valid || json.Valid(b)) && parseSocketReq(b, req) {
		return nil
	}
	*req = socketReq{}
	if len(b) == 0 {
		return badRequest("malformed request: an empty frame")
	}
	return decodeBytes(b, req, maxDepth+1, true)
}

// parseSocketReq reads b, valid JSON, when it is exactly an object whose
// keys are among "id", "op", "episode" and "body", each at most once,
// spelled so, with op and episode strings without escapes; false for
// anything else.
func parseSocketReq(b []byte, req *socketReq) bool {
	var seen [4]bool
	return parseObject(b, func(key []byte, i int) int {
		var k int
		switch string(key) {
		case "id":
			k = 0
		case "op":
			k = 1
		case "episode":
			k = 2
		case "body":
			k = 3
		default:
			return -1
		}
		if seen[k] {
			return -1
		}
		seen[k] = true
		if k == 1 || k == 2 {
			s, next, ok := plainString(b, i)
			if !ok {
				return -1
			}
			if k == 1 {
				req.Op = opName(s)
			} else {
				req.Episode = string(s)
			}
			return next
		}
		end := valueEnd(b, i)
		if end <= i {
			return -1
		}
		if k == 0 {
			req.ID = b[i:end]
		} else {
			req.Body = b[i:end]
		}
		return end
	})
}

// splitBatch returns the requests of a batch frame b (a JSON array),
// aliasing b.
func splitBatch(b []byte, maxDepth, maxItems int) ([][]byte, error) {
	if !json.Valid(b) {
		var items []json.RawMessage
		if err := decodeBytes(b, &items, maxDepth+2, true); err != nil {
			return nil, err
		}
		return nil, badRequest("malformed request: invalid JSON")
	}
	var items [][]byte
	i := skipSpace(b, 1)
	for i < len(b) && b[i] != ']' {
		end := valueEnd(b, i)
		if len(items) == maxItems {
			return nil, badRequest("a batch of more than %d requests", maxItems)
		}
		items = append(items, b[i:end])
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	if len(items) == 0 {
		return nil, badRequest("an empty batch")
	}
	return items, nil
}

// answerFrame appends to e the answer {"id","status","body"} with v as
// the body, encoded as writeJSON encodes a response body.
func answerFrame(e *jsonEncoder, id []byte, status int, retryAfter int, v any) {
	start := e.buf.Len()
	writeFrameHead(e, id, status, retryAfter)
	mark := e.buf.Len()
	if err := e.enc.Encode(v); err != nil {
		e.buf.Truncate(start)
		writeFrameHead(e, id, http.StatusInternalServerError, 0)
		e.buf.WriteString(`{"error":{"code":"internal","message":`)
		e.buf.WriteString(strconv.Quote(err.Error()))
		e.buf.WriteString(`}}`)
	} else if n := e.buf.Len(); n > mark && e.buf.Bytes()[n-1] == '\n' {
		e.buf.Truncate(n - 1)
	}
	e.buf.WriteByte('}')
}

// answerRaw appends to e the answer with body, a response body as an
// HTTP route wrote it.
func answerRaw(e *jsonEncoder, id []byte, status int, retryAfter int, body []byte) {
	writeFrameHead(e, id, status, retryAfter)
	body = bytes.TrimRight(body, "\n")
	if len(body) == 0 {
		body = []byte("null")
	}
	e.buf.Write(body)
	e.buf.WriteByte('}')
}

// answerError appends to e the answer of a failed request, its body the
// one writeError writes.
func answerError(e *jsonEncoder, id []byte, err error) {
	ae := asAPIError(err)
	answerFrame(e, id, ae.status, ae.retryAfter, errorBody(ae))
}

func writeFrameHead(e *jsonEncoder, id []byte, status, retryAfter int) {
	e.buf.WriteString(`{"id":`)
	if len(id) == 0 {
		e.buf.WriteString("null")
	} else {
		e.buf.Write(id)
	}
	e.buf.WriteString(`,"status":`)
	e.buf.WriteString(strconv.Itoa(status))
	if retryAfter > 0 {
		e.buf.WriteString(`,"retry_after":`)
		e.buf.WriteString(strconv.Itoa(retryAfter))
	}
	e.buf.WriteString(`,"body":`)
}

// bufferWriter is the ResponseWriter an HTTP route answers a socket
// request into (the ops other than call, served by the routes themselves).
type bufferWriter struct {
	h    http.Header
	code int
	body bytes.Buffer
}

func (w *bufferWriter) Header() http.Header { return w.h }

func (w *bufferWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *bufferWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(p)
}

// opName is string(b), without an allocation for the ops there are.
func opName(b []byte) string {
	if string(b) == "call" {
		return "call"
	}
	for name := range socketOps {
		if string(b) == name {
			return name
		}
	}
	return string(b)
}
