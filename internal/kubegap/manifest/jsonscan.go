package manifest

import (
	"errors"
	"fmt"
)

// errMore says that the input ended inside the value and more may follow.
var errMore = errors.New("more input needed")

// maxJSONDepth is encoding/json's nesting limit.
const maxJSONDepth = 10000

// strPlain marks the bytes a JSON string may hold as they are.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanJSON validates the JSON value that b starts with (no white space
// before it) and returns its length. At a syntax error it returns the
// offset of the offending byte. When b ends inside the value it returns
// errMore, unless final says that nothing follows b. It accepts exactly
// what json.Valid accepts (FuzzScanJSON compares them).
func scanJSON(b []byte, final bool) (int, error) {
	s := jsonScan{b: b, final: final}
	next := scanValue
	for {
		var n int
		var err error
		switch next {
		case scanValue:
			next, n, err = s.value()
		case scanKey:
			next, n, err = s.key()
		case scanAfter:
			if len(s.stack) == 0 {
				return s.i, nil
			}
			next, n, err = s.after()
		}
		if err != nil {
			return n, err
		}
	}
}

// jsonScan is scanJSON's state: b[i] is the next byte to read, and stack
// holds '{' or '[' for each open container.
type jsonScan struct {
	b     []byte
	i     int
	final bool
	stack []byte
}

// What scanJSON reads next: a value, an object key, or what follows a
// value (a comma, or the end of its container).
const (
	scanValue = iota
	scanKey
	scanAfter
)

// more says that b ended inside the value.
func (s *jsonScan) more() (int, error) {
	if s.final {
		return len(s.b), errors.New("unexpected end of JSON input")
	}
	return len(s.b), errMore
}

// bad reports the byte at i, in encoding/json's words.
func (s *jsonScan) bad(i int, context string) (int, error) {
	return i, fmt.Errorf("invalid character %q %s", s.b[i], context)
}

// ws skips white space.
func (s *jsonScan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\n', '\t', '\r':
			s.i++
			continue
		}
		return
	}
}

// value reads a value that starts at b[i]: a scalar whole, a container up
// to its first key or element.
func (s *jsonScan) value() (int, int, error) {
	if s.i >= len(s.b) {
		n, err := s.more()
		return 0, n, err
	}
	var n int
	var err error
	switch c := s.b[s.i]; {
	case c == '{' || c == '[':
		return s.open(c)
	case c == '"':
		n, err = s.str()
	case c == '-' || (c >= '0' && c <= '9'):
		n, err = s.number()
	case c == 't' || c == 'f' || c == 'n':
		n, err = s.literal(c)
	default:
		n, err = s.bad(s.i, "looking for beginning of value")
	}
	return scanAfter, n, err
}

// open reads the '{' or '[' at b[i] and says what comes next.
func (s *jsonScan) open(c byte) (int, int, error) {
	if len(s.stack) >= maxJSONDepth {
		return 0, s.i, errors.New("exceeded max depth")
	}
	s.stack = append(s.stack, c)
	s.i++
	s.ws()
	if s.i >= len(s.b) {
		n, err := s.more()
		return 0, n, err
	}
	if closer := c + 2; s.b[s.i] == closer { // '{'+2 is '}', '['+2 is ']'
		s.i++
		s.stack = s.stack[:len(s.stack)-1]
		return scanAfter, 0, nil
	}
	if c == '{' {
		return scanKey, 0, nil
	}
	return scanValue, 0, nil
}

// key reads an object key that starts at b[i], and the colon after it.
func (s *jsonScan) key() (int, int, error) {
	if s.b[s.i] != '"' {
		n, err := s.bad(s.i, "looking for beginning of object key string")
		return 0, n, err
	}
	if n, err := s.str(); err != nil {
		return 0, n, err
	}
	s.ws()
	if s.i >= len(s.b) {
		n, err := s.more()
		return 0, n, err
	}
	if s.b[s.i] != ':' {
		n, err := s.bad(s.i, "after object key")
		return 0, n, err
	}
	s.i++
	s.ws()
	return scanValue, 0, nil
}

// after reads what follows a value inside a container: a comma, or the
// end of the container.
func (s *jsonScan) after() (int, int, error) {
	s.ws()
	if s.i >= len(s.b) {
		n, err := s.more()
		return 0, n, err
	}
	top := s.stack[len(s.stack)-1]
	var n int
	var err error
	switch s.b[s.i] {
	case ',':
		s.i++
		s.ws()
		if s.i >= len(s.b) {
			n, err := s.more()
			return 0, n, err
		}
		if top == '{' {
			return scanKey, 0, nil
		}
		return scanValue, 0, nil
	case '}':
		if top != '{' {
			n, err = s.bad(s.i, "after array element")
		}
	case ']':
		if top != '[' {
			n, err = s.bad(s.i, "after object key:value pair")
		}
	default:
		if top == '{' {
			n, err = s.bad(s.i, "after object key:value pair")
		} else {
			n, err = s.bad(s.i, "after array element")
		}
	}
	if err != nil {
		return 0, n, err
	}
	s.i++
	s.stack = s.stack[:len(s.stack)-1]
	return scanAfter, 0, nil
}

// str reads the string that starts at b[i] == '"'.
func (s *jsonScan) str() (int, error) {
	b := s.b
	s.i++
	for {
		for s.i < len(b) && strPlain[b[s.i]] {
			s.i++
		}
		if s.i >= len(b) {
			return s.more()
		}
		switch c := b[s.i]; {
		case c == '"':
			s.i++
			return 0, nil
		case c == '\\':
			if s.i+1 >= len(b) {
				return s.more()
			}
			switch b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				for k := 2; k < 6; k++ {
					if s.i+k >= len(b) {
						return s.more()
					}
					if !isHex(b[s.i+k]) {
						return s.bad(s.i+k, "in \\u hexadecimal character escape")
					}
				}
				s.i += 6
			default:
				return s.bad(s.i+1, "in string escape code")
			}
		default:
			return s.bad(s.i, "in string literal")
		}
	}
}

// number reads the number that starts at b[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *jsonScan) number() (int, error) {
	b := s.b
	if b[s.i] == '-' {
		s.i++
		if s.i >= len(b) {
			return s.more()
		}
	}
	switch {
	case b[s.i] == '0':
		s.i++
	case b[s.i] >= '1' && b[s.i] <= '9':
		s.digits()
	default:
		return s.bad(s.i, "in numeric literal")
	}
	if s.i < len(b) && b[s.i] == '.' {
		s.i++
		if s.i >= len(b) {
			return s.more()
		}
		if b[s.i] < '0' || b[s.i] > '9' {
			return s.bad(s.i, "after decimal point in numeric literal")
		}
		s.digits()
	}
	if s.i < len(b) && (b[s.i] == 'e' || b[s.i] == 'E') {
		s.i++
		if s.i < len(b) && (b[s.i] == '+' || b[s.i] == '-') {
			s.i++
		}
		if s.i >= len(b) {
			return s.more()
		}
		if b[s.i] < '0' || b[s.i] > '9' {
			return s.bad(s.i, "in exponent of numeric literal")
		}
		s.digits()
	}
	if s.i >= len(b) && !s.final {
		return s.more() // the number may go on
	}
	return 0, nil
}

func (s *jsonScan) digits() {
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
}

// literal reads true, false or null, which starts with c at b[i].
func (s *jsonScan) literal(c byte) (int, error) {
	lit := "true"
	if c == 'f' {
		lit = "false"
	} else if c == 'n' {
		lit = "null"
	}
	for k := 1; k < len(lit); k++ {
		if s.i+k >= len(s.b) {
			return s.more()
		}
		if s.b[s.i+k] != lit[k] {
			return s.bad(s.i+k, "in literal "+lit+" (expecting "+fmt.Sprintf("%q", lit[k])+")")
		}
	}
	s.i += len(lit)
	return 0, nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
