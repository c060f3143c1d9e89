package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"unicode/utf8"
)

// The /call route is the server's hot path (serve-bench, rollouts over
// HTTP): encoding/json's Decoder cost it more than a third of the
// handler's own CPU (issue 35, docs/BENCHMARKS.md). Its body almost always
// has one shape, {"name": "TOOL", "arguments": {...}}, which parseCallReq
// reads without a Decoder; any other body (other key spellings, escapes in
// the name, duplicate keys, bad JSON, ...) goes to decodeBytes, so every
// answer, error text included, is the one the general decoder gives
// (TestParseCallReqMatchesDecoder).

// bodyPool holds request body buffers of the /call route.
var bodyPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBody is the largest body buffer put back in bodyPool: a rare
// large body must not stay pinned by the pool.
const maxPooledBody = 64 << 10

// readCallBody reads a bounded request body into a pooled buffer (readBody
// for the /call route; the same errors). The caller returns buf to the
// pool with putBody once nothing refers to its bytes.
func readCallBody(w http.ResponseWriter, r *http.Request, limit int64) (*bytes.Buffer, error) {
	if r.ContentLength > limit {
		return nil, readBodyError(nil, r.ContentLength, limit)
	}
	buf := bodyPool.Get().(*bytes.Buffer)
	buf.Reset()
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, limit)); err != nil {
		putBody(buf)
		return nil, readBodyError(err, 0, limit)
	}
	return buf, nil
}

func putBody(buf *bytes.Buffer) {
	if buf.Cap() <= maxPooledBody {
		bodyPool.Put(buf)
	}
}

// decodeCallReq is decodeBytes(b, req, maxDepth, true) for a /call body.
// valid says b is known to be valid JSON (a /v1/ws frame's body, whose
// frame was checked whole), which parseCallReq then need not check again.
func decodeCallReq(b []byte, req *callReq, maxDepth int, valid bool) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	if err := checkDepth(b, maxDepth); err != nil {
		return err
	}
	if parseCallReq(b, req, valid) {
		return nil
	}
	*req = callReq{}
	return decodeBytes(b, req, maxDepth, true)
}

// parseCallReq reads b when it is exactly an object with the keys "name"
// (a string with no escapes) and "arguments" (any valid JSON value), each
// at most once, spelled so; it reports false for anything else, leaving
// the answer to encoding/json. Arguments alias b, as json.RawMessage
// would hold a copy of the same bytes. valid says b is known to be valid
// JSON, so the arguments' bounds need no check of their own.
func parseCallReq(b []byte, req *callReq, valid bool) bool {
	var seenName, seenArgs bool
	return parseObject(b, func(key []byte, i int) int {
		switch string(key) {
		case "name":
			name, next, ok := plainString(b, i)
			if seenName || !ok {
				return -1
			}
			seenName = true
			req.Name = string(name)
			return next
		case "arguments":
			end := valueEnd(b, i)
			if seenArgs || end <= i || !valid && !json.Valid(b[i:end]) {
				return -1
			}
			seenArgs = true
			req.Arguments = b[i:end]
			return end
		}
		return -1
	})
}

// parseObject reads b when it is exactly a non-empty JSON object whose
// keys are strings without escapes: value reads the value of key at i and
// returns where it ends, or -1 to give up (an unknown or repeated key, a
// value it does not take). It reports false for anything else. The
// parsers of the hot requests (a /call body, a /v1/ws frame) are built on
// it: encoding/json costs them allocations and a reflection walk.
func parseObject(b []byte, value func(key []byte, i int) int) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return false // {}: rare, left to the decoder
	}
	for {
		key, next, ok := plainString(b, i)
		if !ok {
			return false
		}
		i = skipSpace(b, next)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		if i = value(key, skipSpace(b, i+1)); i < 0 {
			return false
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return skipSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// plainString reads the JSON string starting at b[i] when it holds no
// escape, no control character and only valid UTF-8 (what encoding/json
// would return unchanged); it returns its contents and the index after
// its closing quote.
func plainString(b []byte, i int) (s []byte, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			s = b[i+1 : j]
			return s, j + 1, utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// valueEnd returns the index just after the JSON value starting at b[i],
// found by bracket and string matching alone (json.Valid then checks it),
// or i when it finds none.
func valueEnd(b []byte, i int) int {
	depth, inStr, esc := 0, false, false
	for j := i; j < len(b); j++ {
		c := b[j]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
				if depth == 0 {
					return j + 1
				}
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 { // the end of the enclosing object
				return j
			}
			depth--
			if depth == 0 {
				return j + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return j
			}
		}
	}
	if depth == 0 && !inStr {
		return len(b)
	}
	return i
}
