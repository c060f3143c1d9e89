package tools

import (
	"math"
	"strconv"
	"strings"
)

// pyNum is a number of a τ-bench record: a Python int or float. Arithmetic
// follows Python: int op int stays int, anything with a float is a float.
type pyNum struct {
	isInt bool
	i     int64
	f     float64
}

func pyInt(i int64) pyNum     { return pyNum{isInt: true, i: i} }
func pyFloat(f float64) pyNum { return pyNum{f: f} }

// parsePyNum reads a JSON number as Python's json module does (an int
// literal is an int, anything with a fraction or exponent a float).
func parsePyNum(s string) pyNum {
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return pyInt(i)
		}
	}
	f, _ := strconv.ParseFloat(s, 64)
	return pyFloat(f)
}

func (n pyNum) float() float64 {
	if n.isInt {
		return float64(n.i)
	}
	return n.f
}

func (n pyNum) isZero() bool { return n.float() == 0 }

func (n pyNum) add(m pyNum) pyNum {
	if n.isInt && m.isInt {
		return pyInt(n.i + m.i)
	}
	return pyFloat(n.float() + m.float())
}

func (n pyNum) sub(m pyNum) pyNum {
	if n.isInt && m.isInt {
		return pyInt(n.i - m.i)
	}
	return pyFloat(n.float() - m.float())
}

func (n pyNum) less(m pyNum) bool {
	if n.isInt && m.isInt {
		return n.i < m.i
	}
	return n.float() < m.float()
}

func (n pyNum) mul(m pyNum) pyNum {
	if n.isInt && m.isInt {
		return pyInt(n.i * m.i)
	}
	return pyFloat(n.float() * m.float())
}

// neg is Python's unary minus: -0 is 0 for an int, -0.0 for a float.
func (n pyNum) neg() pyNum {
	if n.isInt {
		return pyInt(-n.i)
	}
	return pyFloat(-n.f)
}

// equal is Python's == on two numbers (5 == 5.0).
func (n pyNum) equal(m pyNum) bool {
	if n.isInt && m.isInt {
		return n.i == m.i
	}
	return n.float() == m.float()
}

// text is json.dumps of the number.
func (n pyNum) text() string {
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
	return pyRepr(n.f)
}

// pyRound2 is Python's round(f, 2) for a float: the decimal correctly
// rounded (half to even on exact ties) from the binary value, read back.
func pyRound2(f float64) float64 {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return f
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', 2, 64), 64)
	return r
}

// pyRepr is Python's repr(float) (also str(float)): the shortest digits
// that read back exactly, in fixed notation when the decimal exponent is in
// [-5, 16), otherwise in exponent notation.
func pyRepr(f float64) string {
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
