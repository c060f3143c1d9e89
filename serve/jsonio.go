package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/wasmenv/wasmenv/envpkg"
)

// apiError is a client-visible error: an HTTP status and a JSON body
// {"error": {"code": ..., "message": ...}}.
type apiError struct {
	status     int
	code       Code
	msg        string
	retryAfter int // seconds; 0 = no header
}

func (e *apiError) Error() string { return e.msg }

func errf(status int, code Code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, msg: fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) *apiError {
	return errf(http.StatusBadRequest, CodeBadRequest, format, args...)
}

// writeError writes err; anything that is not an *apiError is a 500.
func writeError(w http.ResponseWriter, err error) {
	ae := asAPIError(err)
	if ae.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(ae.retryAfter))
	}
	writeJSON(w, ae.status, errorBody(ae))
}

// asAPIError is err as the client sees it: anything that is not an
// *apiError is a 500.
func asAPIError(err error) *apiError {
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = errf(http.StatusInternalServerError, CodeInternal, "%v", err)
	}
	return ae
}

// errorBody is the JSON body of an error answer.
func errorBody(ae *apiError) any {
	return map[string]any{"error": map[string]string{"code": string(ae.code), "message": ae.msg}}
}

// jsonEncoder is a response buffer with its encoder, pooled: a response
// costs no encoder and no buffer growth.
type jsonEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var encPool = sync.Pool{New: func() any {
	e := new(jsonEncoder)
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

// contentTypeJSON is every JSON response's Content-Type, set without
// allocating (net/http only reads it).
var contentTypeJSON = []string{"application/json"}

// writeJSON encodes v without HTML escaping.
func writeJSON(w http.ResponseWriter, status int, v any) {
	e := encPool.Get().(*jsonEncoder)
	buf := &e.buf
	buf.Reset()
	if err := e.enc.Encode(v); err == nil && buf.Cap() <= maxPooledBody {
		defer encPool.Put(e) // after the write; an encoder that failed is dropped
	} else if err != nil {
		buf.Reset()
		status = http.StatusInternalServerError
		fmt.Fprintf(buf, `{"error":{"code":"internal","message":%q}}`+"\n", err.Error())
	}
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// readBody reads a bounded request body.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, readBodyError(nil, r.ContentLength, limit)
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		return nil, readBodyError(err, 0, limit)
	}
	return b, nil
}

// readBodyError is the client's error for a body declared over the limit
// (declared > 0), read past it, or not read.
func readBodyError(err error, declared, limit int64) *apiError {
	if declared > 0 {
		return errf(http.StatusRequestEntityTooLarge, CodeTooLarge, "request body is %d bytes, over the limit of %d", declared, limit)
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return errf(http.StatusRequestEntityTooLarge, CodeTooLarge, "request body is over the limit of %d bytes", limit)
	}
	return badRequest("reading request body: %v", err)
}

// decodeJSON reads the body into v, refusing unknown fields (when strict),
// trailing data, nesting deeper than the limit and wrong types. An empty
// body leaves v as it is.
func (s *Server) decodeJSON(w http.ResponseWriter, r *http.Request, v any, strict bool) error {
	b, err := readBody(w, r, s.opts.MaxBodyBytes)
	if err != nil {
		return err
	}
	return decodeBytes(b, v, s.opts.MaxJSONDepth, strict)
}

func decodeBytes(b []byte, v any, maxDepth int, strict bool) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	if err := checkDepth(b, maxDepth); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return badRequest("malformed request: %s", jsonMessage(err))
	}
	if dec.More() {
		return badRequest("malformed request: data after the JSON value")
	}
	if _, err := dec.Token(); err != io.EOF {
		return badRequest("malformed request: data after the JSON value")
	}
	return nil
}

// jsonMessage makes encoding/json errors read well in an API response.
func jsonMessage(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "the body"
		}
		return fmt.Sprintf("%s must be %s, not a JSON %s", field, goTypeName(te.Type.String()), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, se)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "truncated JSON"
	}
	return err.Error()
}

func goTypeName(t string) string {
	switch t {
	case "string":
		return "a string"
	case "int", "int64", "int32":
		return "an integer"
	case "float64":
		return "a number"
	case "bool":
		return "a boolean"
	case "*string":
		return "a string or null"
	case "*int64":
		return "an integer or null"
	}
	return "an object"
}

// checkDepth refuses JSON nested deeper than max, without decoding it.
func checkDepth(b []byte, max int) error {
	depth, inStr, esc := 0, false, false
	for _, c := range b {
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
			if depth > max {
				return badRequest("JSON is nested deeper than %d levels", max)
			}
		case '}', ']':
			depth--
		}
	}
	return nil
}

// rawArgs normalizes tool arguments: absent or null is {}, and a JSON string
// holding JSON (the chat-completions tool_calls form) is unwrapped.
func rawArgs(a json.RawMessage) []byte { return envpkg.CallArguments(a) }
