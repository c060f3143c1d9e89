package py

import (
	"math"
	"strconv"
	"strings"
)

// Num is a number of a JSON record as Python's json module loads it: an int
// or a float. Arithmetic follows Python: int op int stays int, anything with
// a float is a float. Ints are int64 (records hold prices and counts, not
// unbounded ints).
type Num struct {
	isInt bool
	i     int64
	f     float64
}

// Int is a Python int.
func Int(i int64) Num { return Num{isInt: true, i: i} }

// Float is a Python float.
func Float(f float64) Num { return Num{f: f} }

// ParseNum reads a JSON number as Python's json module does (an int
// literal is an int, anything with a fraction or exponent a float).
func ParseNum(s string) Num {
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return Int(i)
		}
	}
	f, _ := strconv.ParseFloat(s, 64)
	return Float(f)
}

// IsInt reports whether n is a Python int.
func (n Num) IsInt() bool { return n.isInt }

// Float64 is float(n).
func (n Num) Float64() float64 {
	if n.isInt {
		return float64(n.i)
	}
	return n.f
}

// IsZero is not bool(n).
func (n Num) IsZero() bool { return n.Float64() == 0 }

// Add is n + m.
func (n Num) Add(m Num) Num {
	if n.isInt && m.isInt {
		return Int(n.i + m.i)
	}
	return Float(n.Float64() + m.Float64())
}

// Sub is n - m.
func (n Num) Sub(m Num) Num {
	if n.isInt && m.isInt {
		return Int(n.i - m.i)
	}
	return Float(n.Float64() - m.Float64())
}

// Mul is n * m.
func (n Num) Mul(m Num) Num {
	if n.isInt && m.isInt {
		return Int(n.i * m.i)
	}
	return Float(n.Float64() * m.Float64())
}

// Neg is Python's unary minus: -0 is 0 for an int, -0.0 for a float.
func (n Num) Neg() Num {
	if n.isInt {
		return Int(-n.i)
	}
	return Float(-n.f)
}

// Abs is abs(n).
func (n Num) Abs() Num {
	if n.isInt {
		if n.i < 0 {
			return Int(-n.i)
		}
		return n
	}
	return Float(math.Abs(n.f))
}

// Less is n < m.
func (n Num) Less(m Num) bool {
	if n.isInt && m.isInt {
		return n.i < m.i
	}
	return n.Float64() < m.Float64()
}

// Equal is Python's == on two numbers (5 == 5.0).
func (n Num) Equal(m Num) bool {
	if n.isInt && m.isInt {
		return n.i == m.i
	}
	return n.Float64() == m.Float64()
}

// Round2 is Python's round(n, 2): an int is returned unchanged.
func (n Num) Round2() Num {
	if n.isInt {
		return n
	}
	return Float(Round2(n.f))
}

// Text is json.dumps(n).
func (n Num) Text() string {
	if n.isInt {
		return strconv.FormatInt(n.i, 10)
	}
	switch {
	case math.IsInf(n.f, 1):
		return "Infinity"
	case math.IsInf(n.f, -1):
		return "-Infinity"
	case math.IsNaN(n.f):
		return "NaN"
	}
	return FloatRepr(n.f)
}

// Str is str(n), as an f-string writes it.
func (n Num) Str() string {
	if n.isInt {
		return strconv.FormatInt(n.i, 10)
	}
	return FloatRepr(n.f)
}

// Round2 is Python's round(f, 2) for a float: the decimal correctly
// rounded (half to even on exact ties) from the binary value, read back.
func Round2(f float64) float64 {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return f
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', 2, 64), 64)
	return r
}

// FloatRepr is Python's repr(float) (also str(float)): the shortest digits
// that read back exactly, in fixed notation when the decimal exponent is in
// [-5, 16), otherwise in exponent notation.
func FloatRepr(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return e // Go writes "1e+16", "1.5e-05": the same as Python
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
