package py

import (
	"errors"
	"math"
	"strconv"
)

// pyVal is a Python value that the arithmetic subset can produce: an int
// (big when it left int64: f then holds its approximate value), a float, a
// complex (from a negative number to a fractional power) or the empty tuple.
type pyVal struct {
	kind byte // 'i', 'f', 'c', 't'
	i    int64
	big  bool
	f    float64
	c    complex128
}

// DivisionByZeroError is the ZeroDivisionError of a division or modulo by
// zero (/, //, %), with Python 3.11's text, which depends on the operands:
// "division by zero" (int / 0), "integer division or modulo by zero",
// "float division by zero", "float floor division by zero", "complex
// division by zero". A port whose reference gives one text for every
// division matches it with errors.As. (Zero to a negative power is a
// ZeroDivisionError in Python too, but not a division: a plain error.)
type DivisionByZeroError struct{ Msg string }

func (e *DivisionByZeroError) Error() string { return e.Msg }

func divisionByZero(msg string) error { return &DivisionByZeroError{Msg: msg} }

func (v pyVal) typeName() string {
	switch v.kind {
	case 'i':
		return "int"
	case 'f':
		return "float"
	case 'c':
		return "complex"
	}
	return "tuple"
}

func bigInt(f float64) pyVal { return pyVal{kind: 'i', big: true, f: f} }

// toFloat is float(v) for an int or a float.
func (v pyVal) toFloat() (float64, error) {
	if v.kind == 'f' {
		return v.f, nil
	}
	if v.big {
		if math.IsInf(v.f, 0) {
			return 0, errors.New("int too large to convert to float")
		}
		return v.f, nil
	}
	return float64(v.i), nil
}

func (v pyVal) toComplex() (complex128, error) {
	if v.kind == 'c' {
		return v.c, nil
	}
	f, err := v.toFloat()
	return complex(f, 0), err
}

// calcEval evaluates a parsed expression with Python semantics.
func calcEval(n *cnode) (pyVal, error) {
	switch n.op {
	case "num":
		return literal(n.text), nil
	case "()":
		return pyVal{kind: 't'}, nil
	case "call":
		f, err := calcEval(n.x)
		if err != nil {
			return pyVal{}, err
		}
		if n.y != nil {
			if _, err := calcEval(n.y); err != nil {
				return pyVal{}, err
			}
		}
		return pyVal{}, errors.New("'" + f.typeName() + "' object is not callable")
	case "neg", "pos":
		x, err := calcEval(n.x)
		if err != nil {
			return pyVal{}, err
		}
		return unary(n.op, x)
	}
	x, err := calcEval(n.x)
	if err != nil {
		return pyVal{}, err
	}
	y, err := calcEval(n.y)
	if err != nil {
		return pyVal{}, err
	}
	return binary(n.op, x, y)
}

func literal(t string) pyVal {
	for _, c := range t {
		if c == '.' {
			f, _ := strconv.ParseFloat(t, 64)
			return pyVal{kind: 'f', f: f}
		}
	}
	if i, err := strconv.ParseInt(t, 10, 64); err == nil {
		return pyVal{kind: 'i', i: i}
	}
	f, _ := strconv.ParseFloat(t, 64)
	return bigInt(f)
}

func unary(op string, x pyVal) (pyVal, error) {
	if op == "pos" {
		if x.kind == 't' {
			return pyVal{}, errors.New("bad operand type for unary +: 'tuple'")
		}
		return x, nil
	}
	switch x.kind {
	case 'i':
		if x.big {
			return bigInt(-x.f), nil
		}
		if x.i == math.MinInt64 {
			return bigInt(-float64(x.i)), nil
		}
		return pyVal{kind: 'i', i: -x.i}, nil
	case 'f':
		return pyVal{kind: 'f', f: -x.f}, nil
	case 'c':
		return pyVal{kind: 'c', c: -x.c}, nil
	}
	return pyVal{}, errors.New("bad operand type for unary -: 'tuple'")
}

func unsupported(op string, x, y pyVal) error {
	if op == "**" {
		op = "** or pow()"
	}
	return errors.New("unsupported operand type(s) for " + op + ": '" + x.typeName() + "' and '" + y.typeName() + "'")
}

func binary(op string, x, y pyVal) (pyVal, error) {
	if x.kind == 't' || y.kind == 't' {
		return tupleOp(op, x, y)
	}
	if x.kind == 'c' || y.kind == 'c' {
		return complexOp(op, x, y)
	}
	if x.kind == 'i' && y.kind == 'i' {
		return intOp(op, x, y)
	}
	a, err := x.toFloat()
	if err != nil {
		return pyVal{}, err
	}
	b, err := y.toFloat()
	if err != nil {
		return pyVal{}, err
	}
	return floatOp(op, a, b)
}

func tupleOp(op string, x, y pyVal) (pyVal, error) {
	switch op {
	case "+":
		if x.kind == 't' && y.kind == 't' {
			return x, nil
		}
		if x.kind == 't' {
			return pyVal{}, errors.New(`can only concatenate tuple (not "` + y.typeName() + `") to tuple`)
		}
	case "*":
		other := y
		if y.kind == 't' {
			other = x
		}
		if other.kind == 'i' {
			return pyVal{kind: 't'}, nil
		}
		return pyVal{}, errors.New("can't multiply sequence by non-int of type '" + other.typeName() + "'")
	}
	return pyVal{}, unsupported(op, x, y)
}

func intOp(op string, x, y pyVal) (pyVal, error) {
	if x.big || y.big {
		a, b := x.f, y.f
		if !x.big {
			a = float64(x.i)
		}
		if !y.big {
			b = float64(y.i)
		}
		switch op {
		case "+":
			return bigInt(a + b), nil
		case "-":
			return bigInt(a - b), nil
		case "*":
			return bigInt(a * b), nil
		case "/", "//":
			if b == 0 && op == "/" {
				return pyVal{}, divisionByZero("division by zero")
			}
			if b == 0 {
				return pyVal{}, divisionByZero("integer division or modulo by zero")
			}
			if op == "/" {
				return pyVal{kind: 'f', f: a / b}, nil
			}
			return bigInt(math.Floor(a / b)), nil
		}
		if b < 0 {
			return floatOp("**", a, b)
		}
		return bigInt(math.Pow(a, b)), nil
	}
	a, b := x.i, y.i
	switch op {
	case "+":
		s := a + b
		if (s > a) != (b > 0) {
			return bigInt(float64(a) + float64(b)), nil
		}
		return pyVal{kind: 'i', i: s}, nil
	case "-":
		d := a - b
		if (d < a) != (b > 0) {
			return bigInt(float64(a) - float64(b)), nil
		}
		return pyVal{kind: 'i', i: d}, nil
	case "*":
		if m, ok := mulInt(a, b); ok {
			return pyVal{kind: 'i', i: m}, nil
		}
		return bigInt(float64(a) * float64(b)), nil
	case "/":
		if b == 0 {
			return pyVal{}, divisionByZero("division by zero")
		}
		return pyVal{kind: 'f', f: float64(a) / float64(b)}, nil
	case "//":
		if b == 0 {
			return pyVal{}, divisionByZero("integer division or modulo by zero")
		}
		if a == math.MinInt64 && b == -1 {
			return bigInt(-float64(a)), nil
		}
		q := a / b
		if (a%b != 0) && ((a < 0) != (b < 0)) {
			q--
		}
		return pyVal{kind: 'i', i: q}, nil
	}
	// "**"
	if b < 0 {
		return floatOp("**", float64(a), float64(b))
	}
	r, base, ok := int64(1), a, true
	for e := b; e > 0 && ok; e >>= 1 {
		if e&1 == 1 {
			r, ok = mulInt(r, base)
		}
		if e > 1 && ok {
			base, ok = mulInt(base, base)
		}
	}
	if !ok {
		return bigInt(math.Pow(float64(a), float64(b))), nil
	}
	return pyVal{kind: 'i', i: r}, nil
}

func mulInt(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	m := a * b
	if m/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return m, true
}

func floatOp(op string, a, b float64) (pyVal, error) {
	switch op {
	case "+":
		return pyVal{kind: 'f', f: a + b}, nil
	case "-":
		return pyVal{kind: 'f', f: a - b}, nil
	case "*":
		return pyVal{kind: 'f', f: a * b}, nil
	case "/":
		if b == 0 {
			return pyVal{}, divisionByZero("float division by zero")
		}
		return pyVal{kind: 'f', f: a / b}, nil
	case "//":
		if b == 0 {
			return pyVal{}, divisionByZero("float floor division by zero")
		}
		return pyVal{kind: 'f', f: floatFloorDiv(a, b)}, nil
	}
	return floatPow(a, b)
}

// floatFloorDiv is CPython's float_floor_div.
func floatFloorDiv(vx, wx float64) float64 {
	mod := math.Mod(vx, wx)
	div := (vx - mod) / wx
	if mod != 0 {
		if (wx < 0) != (mod < 0) {
			div -= 1.0
		}
	}
	if div != 0 {
		floordiv := math.Floor(div)
		if div-floordiv > 0.5 {
			floordiv += 1.0
		}
		return floordiv
	}
	return math.Copysign(0, vx/wx)
}

func isOddInteger(f float64) bool { return math.Mod(math.Abs(f), 2) == 1 }

// floatPow is CPython's float_pow.
func floatPow(iv, iw float64) (pyVal, error) {
	ret := func(f float64) (pyVal, error) { return pyVal{kind: 'f', f: f}, nil }
	switch {
	case iw == 0:
		return ret(1)
	case math.IsNaN(iv):
		return ret(iv)
	case math.IsNaN(iw):
		if iv == 1 {
			return ret(1)
		}
		return ret(iw)
	case math.IsInf(iw, 0):
		iv = math.Abs(iv)
		if iv == 1 {
			return ret(1)
		}
		if (iw > 0) == (iv > 1) {
			return ret(math.Abs(iw))
		}
		return ret(0)
	case math.IsInf(iv, 0):
		odd := isOddInteger(iw)
		if iw > 0 {
			if odd {
				return ret(iv)
			}
			return ret(math.Abs(iv))
		}
		if odd {
			return ret(math.Copysign(0, iv))
		}
		return ret(0)
	case iv == 0:
		if iw < 0 {
			return pyVal{}, errors.New("0.0 cannot be raised to a negative power")
		}
		if isOddInteger(iw) {
			return ret(iv)
		}
		return ret(0)
	}
	negate := false
	if iv < 0 {
		if iw != math.Floor(iw) {
			return complexPow(complex(iv, 0), complex(iw, 0))
		}
		iv = -iv
		negate = isOddInteger(iw)
	}
	if iv == 1 {
		if negate {
			return ret(-1)
		}
		return ret(1)
	}
	ix := math.Pow(iv, iw)
	if negate {
		ix = -ix
	}
	if math.IsInf(ix, 0) {
		return pyVal{}, errors.New("(34, 'Numerical result out of range')")
	}
	return ret(ix)
}

func complexOp(op string, x, y pyVal) (pyVal, error) {
	if op == "//" {
		return pyVal{}, unsupported(op, x, y)
	}
	a, err := x.toComplex()
	if err != nil {
		return pyVal{}, err
	}
	b, err := y.toComplex()
	if err != nil {
		return pyVal{}, err
	}
	switch op {
	case "+":
		return pyVal{kind: 'c', c: a + b}, nil
	case "-":
		return pyVal{kind: 'c', c: a - b}, nil
	case "*":
		return pyVal{kind: 'c', c: a * b}, nil
	case "/":
		if b == 0 {
			return pyVal{}, divisionByZero("complex division by zero")
		}
		return pyVal{kind: 'c', c: a / b}, nil
	}
	return complexPow(a, b)
}

// complexPow is CPython's c_pow.
func complexPow(a, b complex128) (pyVal, error) {
	switch {
	case b == 0:
		return pyVal{kind: 'c', c: 1}, nil
	case a == 0:
		if imag(b) != 0 || real(b) < 0 {
			return pyVal{}, errors.New("0.0 to a negative or complex power")
		}
		return pyVal{kind: 'c'}, nil
	}
	vabs := math.Hypot(real(a), imag(a))
	length := math.Pow(vabs, real(b))
	at := math.Atan2(imag(a), real(a))
	phase := at * real(b)
	if imag(b) != 0 {
		length /= math.Exp(at * imag(b))
		phase += imag(b) * math.Log(vabs)
	}
	r := complex(length*math.Cos(phase), length*math.Sin(phase))
	if math.IsInf(real(r), 0) || math.IsInf(imag(r), 0) {
		return pyVal{}, errors.New("complex exponentiation")
	}
	return pyVal{kind: 'c', c: r}, nil
}

// Calculate is τ-bench's calculate tool: str(round(float(eval(expression)),
// 2)) for an expression of the characters "0123456789+-*/(). ", evaluated
// as Python 3.11 would (exact unbounded ints as far as a float result needs
// them, true and floor division, powers, complex results of fractional
// powers), with Python's error texts ("Error: " is the caller's).
func Calculate(expression string) (string, error) {
	for _, c := range expression {
		if c > 0x7f || !isCalcChar(byte(c)) {
			return "", errors.New("invalid characters in expression")
		}
	}
	// eval strips leading spaces of its source
	i := 0
	for i < len(expression) && expression[i] == ' ' {
		i++
	}
	tree, err := cparse(expression[i:])
	if err != nil {
		return "", err
	}
	v, err := calcEval(tree)
	if err != nil {
		return "", err
	}
	var f float64
	switch v.kind {
	case 'c', 't':
		return "", errors.New("float() argument must be a string or a real number, not '" + v.typeName() + "'")
	default:
		if f, err = v.toFloat(); err != nil {
			return "", err
		}
	}
	return FloatRepr(Round2(f)), nil
}

func isCalcChar(c byte) bool {
	switch {
	case c >= '0' && c <= '9':
		return true
	case c == '+' || c == '-' || c == '*' || c == '/' || c == '(' || c == ')' || c == '.' || c == ' ':
		return true
	}
	return false
}
