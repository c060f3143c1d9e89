package tools

import "github.com/wasmenv/wasmenv/sdk/py"

// The searches return flight records that SQLite's JSON functions wrote
// (minified). Re-spacing that text the way json.dumps lays it out is much
// cheaper in the guest than parsing it into values and encoding them again;
// the parse path stays for what the re-spacing cannot guarantee to write
// exactly as Python would (non-ASCII or escaped strings, non-integer numbers,
// keys that dict.update would overwrite in place).

// objectLayout returns the members of the JSON object text s in json.dumps's
// layout (without the braces) and its top-level keys; ok is false when the
// text is not a plain object of ASCII strings without escapes and integers.
func objectLayout(s string) (members []byte, keys []string, ok bool) {
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, nil, false
	}
	b := make([]byte, 0, len(s)+len(s)/4)
	depth := 0
	for i := 1; i < len(s)-1; i++ {
		c := s[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' || s[j] < 0x20 || s[j] >= 0x80 {
					return nil, nil, false
				}
				j++
			}
			if j >= len(s)-1 {
				return nil, nil, false
			}
			if depth == 0 && s[j+1] == ':' {
				keys = append(keys, s[i+1:j])
			}
			b = append(b, s[i:j+1]...)
			i = j
		case c == ',':
			b = append(b, ", "...)
		case c == ':':
			b = append(b, ": "...)
		case c == '{' || c == '[':
			depth++
			b = append(b, c)
		case c == '}' || c == ']':
			depth--
			b = append(b, c)
		case c == ' ' || c == '\n' || c == '\t' || c == '\r':
		case c == '.' || c == 'e' || c == 'E':
			return nil, nil, false // a float: Python's repr may spell it differently
		default: // digits, '-', true, false, null
			b = append(b, c)
		}
	}
	return b, keys, depth == 0
}

// appendHit appends a search hit: the flight's fields except dates (head),
// then the date record's fields, then "date" when date is not empty, as
// json.dumps writes the dict τ-bench builds.
func appendHit(b []byte, head, day, date string) ([]byte, error) {
	hm, hk, ok1 := objectLayout(head)
	dm, dk, ok2 := objectLayout(day)
	if ok1 && ok2 && len(hk) > 0 && len(dk) > 0 && disjoint(hk, dk) && (date == "" || (!contains(hk, "date") && !contains(dk, "date"))) {
		b = append(b, '{')
		b = append(b, hm...)
		b = append(b, ", "...)
		b = append(b, dm...)
		if date != "" {
			b = append(b, `, "date": `...)
			b = py.AppendString(b, date)
		}
		return append(b, '}'), nil
	}
	hit, err := flightHit(head, day)
	if err != nil {
		return nil, err
	}
	if date != "" {
		hit.Set("date", py.Str(date))
	}
	return hit.AppendTo(b), nil
}

func disjoint(a, b []string) bool {
	for _, k := range b {
		if contains(a, k) {
			return false
		}
	}
	return true
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
