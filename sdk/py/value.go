package py

// Value is a JSON value that behaves like a Python object loaded by json.load:
// objects keep their key order (Python dicts are insertion-ordered), numbers
// keep whether they were ints or floats, and Encode writes exactly what
// Python's json.dumps writes (", " and ": " separators, ensure_ascii,
// float repr).
type Value struct {
	kind byte   // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null, 'r' raw (see ParseLazy)
	str  string // string value, or number text (an int literal or a float repr); raw text (see force)
	b    bool   // bool value
	// dirty: an object or list changed after it was parsed from a stored
	// record (force); until then Encode writes its stored text (str)
	dirty bool
	keys  []string // object keys in insertion order
	vals  []*Value // object values (parallel to keys) or array elements
}

// Values, built or parsed, are carved from the call's arena (arena.go): a
// Value lives for the tool call that made it.

// newValue is a value of this kind and text, from the call's arena.
func newValue(kind byte, str string) *Value {
	v := callArena().value()
	v.kind, v.str = kind, str
	return v
}

// Str is a str value.
func Str(s string) *Value { return newValue('s', s) }

// Number is a number value (an int or a float, as n is).
func Number(n Num) *Value { return newValue('n', n.Text()) }

// Object is an empty dict.
func Object() *Value { return newValue('o', "") }

// List is a list of these elements (not copied).
func List(elems ...*Value) *Value {
	a := newValue('a', "")
	a.vals = elems
	return a
}

// Strings is a list of str values.
func Strings(ss []string) *Value {
	a := newValue('a', "")
	a.vals = callArena().elems(len(ss))
	for _, s := range ss {
		a.vals = append(a.vals, Str(s))
	}
	return a
}

// Items are a list's elements (a dict's values, in key order, for a dict
// that was built or fully parsed). Like Python's subscript of None, it
// panics on a nil value.
func (v *Value) Items() []*Value { return v.vals }

// Len is len(v) of a list or dict (panics on a nil value, as Items does).
func (v *Value) Len() int { return len(v.vals) }

// Append is list.append (extend, for several). It panics on a nil value.
func (v *Value) Append(elems ...*Value) {
	v.vals = append(v.vals, elems...)
	v.dirty = true
}

// Keys are a dict's keys in insertion order (the slice is v's own).
func (v *Value) Keys() []string { return v.keys }

// IsList reports whether v is a list.
func (v *Value) IsList() bool { return v != nil && v.kind == 'a' }

// IsDict reports whether v is a dict.
func (v *Value) IsDict() bool { return v != nil && v.kind == 'o' }

// IsString reports whether v is a str.
func (v *Value) IsString() bool { return v != nil && v.kind == 's' }

// Get returns obj[key], or nil when v is not an object or has no such key.
// A raw member (ParseLazy) is parsed on first access.
func (v *Value) Get(key string) *Value {
	if v == nil || v.kind != 'o' {
		return nil
	}
	for i, k := range v.keys {
		if k == key {
			if x := v.vals[i]; x.kind == 'r' {
				x.force()
			}
			return v.vals[i]
		}
	}
	return nil
}

// MemberJSON returns obj[key] as JSON text without parsing it: a raw
// member's text as stored (ParseLazy), any other member encoded; ok is
// false when v is not an object or has no such key.
func (v *Value) MemberJSON(key string) (text string, ok bool) {
	if v == nil || v.kind != 'o' {
		return "", false
	}
	for i, k := range v.keys {
		if k == key {
			if x := v.vals[i]; x.kind == 'r' {
				return x.str, true
			}
			return v.vals[i].Encode(), true
		}
	}
	return "", false
}

// force parses a raw value in place. Its objects and lists keep their
// stored text (keepRaw), which Encode writes back while they and everything
// in them are unchanged: a write tool that reads an order's items to check
// them writes them back as a copy, not encoded again.
func (v *Value) force() {
	p := &jparser{s: v.str, keepRaw: true}
	x, err := p.value(0)
	if err == nil {
		p.ws()
		if p.i != len(p.s) {
			err = errJSON()
		}
	}
	if err != nil {
		*v = Value{kind: 'z'}
		return
	}
	*v = *x
}

// clean reports whether an object or list parsed from a stored record
// (force) and everything in it are unchanged since: Encode then writes its
// stored text.
func (v *Value) clean() bool {
	if v.dirty || v.str == "" {
		return false
	}
	for _, x := range v.vals {
		if (x.kind == 'o' || x.kind == 'a') && !x.clean() {
			return false
		}
	}
	return true
}

// Set assigns obj[key] like Python: an existing key keeps its position, a new
// key is appended at the end.
func (v *Value) Set(key string, val *Value) {
	for i, k := range v.keys {
		if k == key {
			v.vals[i] = val
			v.dirty = true
			return
		}
	}
	v.dirty = true
	if v.keys == nil { // a dict being built: room for a record's members at once
		v.keys, v.vals = callArena().members(8)
	}
	v.keys = append(v.keys, key)
	v.vals = append(v.vals, val)
}

// Text is the string value ("" for a non-string).
func (v *Value) Text() string {
	if v == nil || v.kind != 's' {
		return ""
	}
	return v.str
}

// IsStr reports whether v is the string s.
func (v *Value) IsStr(s string) bool { return v != nil && v.kind == 's' && v.str == s }

// Truthy is Python's bool(v).
func (v *Value) Truthy() bool {
	if v == nil {
		return false
	}
	switch v.kind {
	case 'b':
		return v.b
	case 's':
		return v.str != ""
	case 'n':
		n, _ := v.Num()
		return !n.IsZero()
	case 'o':
		return len(v.keys) > 0
	case 'a':
		return len(v.vals) > 0
	}
	return false
}

// Num returns the value of a number.
func (v *Value) Num() (Num, bool) {
	if v == nil || v.kind != 'n' {
		return Num{}, false
	}
	return ParseNum(v.str), true
}

// Del removes obj[key] (Python's del), keeping the other keys' order.
func (v *Value) Del(key string) {
	for i, k := range v.keys {
		if k == key {
			v.keys = append(v.keys[:i], v.keys[i+1:]...)
			v.vals = append(v.vals[:i], v.vals[i+1:]...)
			v.dirty = true
			return
		}
	}
}

// Update is Python's dict.update(other): existing keys keep their place.
func (v *Value) Update(other *Value) {
	for i, k := range other.keys {
		v.Set(k, other.vals[i])
	}
}

// Equal is Python's == on two JSON-loaded values: dicts compare without
// regard to key order, numbers by value (1 == 1.0, True == 1).
func Equal(a, b *Value) bool {
	if a == nil || b == nil {
		return a == b
	}
	a.forceRaw()
	b.forceRaw()
	an, aNum := numeric(a)
	bn, bNum := numeric(b)
	if aNum || bNum {
		return aNum && bNum && an == bn
	}
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case 's':
		return a.str == b.str
	case 'o':
		if len(a.keys) != len(b.keys) {
			return false
		}
		for _, k := range a.keys {
			if !Equal(a.Get(k), b.Get(k)) {
				return false
			}
		}
		return true
	case 'a':
		if len(a.vals) != len(b.vals) {
			return false
		}
		for i := range a.vals {
			if !Equal(a.vals[i], b.vals[i]) {
				return false
			}
		}
		return true
	}
	return true // null
}

// forceRaw parses a raw value (a lazily parsed record's member) in place.
func (v *Value) forceRaw() {
	if v.kind == 'r' {
		v.force()
	}
}

// numeric returns the value of a number or bool.
func numeric(v *Value) (float64, bool) {
	switch v.kind {
	case 'n':
		n, _ := v.Num()
		return n.Float64(), true
	case 'b':
		if v.b {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}
