package py

import (
	"errors"
	"strings"
)

// This file tokenizes and parses the arithmetic subset of Python that
// calculate accepts (only the characters "0123456789+-*/(). "), reporting
// syntax errors the way CPython 3.11's eval does.

type ctok struct {
	kind  byte   // 'n' number, 'o' operator or parenthesis
	text  string // number literal or operator
	level int    // parenthesis depth at the token
}

const syntaxSuffix = " (<string>, line 1)"

// ctokenize splits an expression into tokens. A tokenizer error (leading
// zeros, an unmatched ')', an unclosed '(') takes precedence over any
// parse error, as in CPython, which re-tokenizes the whole source on error.
func ctokenize(s string) ([]ctok, error) {
	var toks []ctok
	level := 0
	i := 0
	digits := func() {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ':
			i++
		case c >= '0' && c <= '9' || (c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9'):
			start := i
			digits()
			isFloat := false
			if i < len(s) && s[i] == '.' {
				isFloat = true
				i++
				digits()
			}
			t := s[start:i]
			if !isFloat && len(t) > 1 && t[0] == '0' && strings.Trim(t, "0") != "" {
				return nil, errors.New("leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers" + syntaxSuffix)
			}
			toks = append(toks, ctok{kind: 'n', text: t, level: level})
		case c == '(':
			level++
			toks = append(toks, ctok{kind: 'o', text: "(", level: level})
			i++
		case c == ')':
			if level == 0 {
				return nil, errors.New("unmatched ')'" + syntaxSuffix)
			}
			toks = append(toks, ctok{kind: 'o', text: ")", level: level})
			level--
			i++
		case (c == '*' || c == '/') && i+1 < len(s) && s[i+1] == c:
			toks = append(toks, ctok{kind: 'o', text: s[i : i+2], level: level})
			i += 2
		default: // + - * / .
			toks = append(toks, ctok{kind: 'o', text: s[i : i+1], level: level})
			i++
		}
	}
	if level > 0 {
		return nil, errors.New("'(' was never closed" + syntaxSuffix)
	}
	return toks, nil
}

// cnode is a parsed expression.
type cnode struct {
	op   string // "num", "()", "call", "neg", "pos", or a binary operator
	text string // number literal
	x, y *cnode // operands; for "call": x the callee, y the argument or nil
}

type cparser struct {
	toks []ctok
	i    int
}

func errInvalidSyntax() error { return errors.New("invalid syntax" + syntaxSuffix) }

func (p *cparser) peek() string {
	if p.i < len(p.toks) && p.toks[p.i].kind == 'o' {
		return p.toks[p.i].text
	}
	return ""
}

func (p *cparser) atNumber() bool { return p.i < len(p.toks) && p.toks[p.i].kind == 'n' }

// cparse parses a whole expression.
func cparse(s string) (*cnode, error) {
	toks, err := ctokenize(s)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, errors.New("invalid syntax (<string>, line 0)")
	}
	p := &cparser{toks: toks}
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.i != len(p.toks) {
		return nil, errInvalidSyntax()
	}
	return n, nil
}

// expr: term (('+'|'-') term)*
func (p *cparser) expr() (*cnode, error) {
	x, err := p.term()
	if err != nil {
		return nil, err
	}
	for op := p.peek(); op == "+" || op == "-"; op = p.peek() {
		p.i++
		y, err := p.term()
		if err != nil {
			return nil, err
		}
		x = &cnode{op: op, x: x, y: y}
	}
	return x, nil
}

// term: factor (('*'|'/'|'//') factor)*
func (p *cparser) term() (*cnode, error) {
	x, err := p.factor()
	if err != nil {
		return nil, err
	}
	for op := p.peek(); op == "*" || op == "/" || op == "//"; op = p.peek() {
		p.i++
		y, err := p.factor()
		if err != nil {
			return nil, err
		}
		x = &cnode{op: op, x: x, y: y}
	}
	return x, nil
}

// factor: ('+'|'-') factor | power
func (p *cparser) factor() (*cnode, error) {
	switch p.peek() {
	case "+", "-":
		op := "pos"
		if p.peek() == "-" {
			op = "neg"
		}
		p.i++
		x, err := p.factor()
		if err != nil {
			return nil, err
		}
		return &cnode{op: op, x: x}, nil
	}
	return p.power()
}

// power: primary ['**' factor]
func (p *cparser) power() (*cnode, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	if p.peek() == "**" {
		p.i++
		y, err := p.factor()
		if err != nil {
			return nil, err
		}
		return &cnode{op: "**", x: x, y: y}, nil
	}
	return x, nil
}

// primary: atom ('(' [expr] ')')*  (a call, which fails at run time)
func (p *cparser) primary() (*cnode, error) {
	x, err := p.atom()
	if err != nil {
		return nil, err
	}
	for p.peek() == "(" {
		p.i++
		var arg *cnode
		if p.peek() != ")" {
			if arg, err = p.inner(); err != nil {
				return nil, err
			}
		}
		if p.peek() != ")" {
			return nil, errInvalidSyntax()
		}
		p.i++
		x = &cnode{op: "call", x: x, y: arg}
	}
	return x, nil
}

// atom: NUMBER | '(' ')' | '(' expr ')'
func (p *cparser) atom() (*cnode, error) {
	if p.atNumber() {
		p.i++
		return &cnode{op: "num", text: p.toks[p.i-1].text}, nil
	}
	if p.peek() != "(" {
		return nil, errInvalidSyntax()
	}
	p.i++
	if p.peek() == ")" {
		p.i++
		return &cnode{op: "()"}, nil
	}
	x, err := p.inner()
	if err != nil {
		return nil, err
	}
	if p.peek() != ")" {
		return nil, errInvalidSyntax()
	}
	p.i++
	return x, nil
}

// inner parses an expression inside parentheses, where CPython suggests a
// missing comma when a number directly follows a complete expression.
func (p *cparser) inner() (*cnode, error) {
	x, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.atNumber() {
		return nil, errors.New("invalid syntax. Perhaps you forgot a comma?" + syntaxSuffix)
	}
	return x, nil
}
