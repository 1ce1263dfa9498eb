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
	var stack []byte // '{' or '[' for each open container
	i := 0
	more := func() (int, error) {
		if final {
			return len(b), errors.New("unexpected end of JSON input")
		}
		return len(b), errMore
	}
	bad := func(i int, context string) (int, error) {
		return i, fmt.Errorf("invalid character %q %s", b[i], context)
	}
	ws := func() {
		for i < len(b) {
			switch b[i] {
			case ' ', '\n', '\t', '\r':
				i++
				continue
			}
			return
		}
	}
	str := func() (bool, int, error) { // b[i] == '"'
		i++
		for {
			for i < len(b) && strPlain[b[i]] {
				i++
			}
			if i >= len(b) {
				n, err := more()
				return false, n, err
			}
			switch c := b[i]; {
			case c == '"':
				i++
				return true, 0, nil
			case c == '\\':
				if i+1 >= len(b) {
					n, err := more()
					return false, n, err
				}
				switch b[i+1] {
				case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
					i += 2
				case 'u':
					for k := 2; k < 6; k++ {
						if i+k >= len(b) {
							n, err := more()
							return false, n, err
						}
						if !isHex(b[i+k]) {
							n, err := bad(i+k, "in \\u hexadecimal character escape")
							return false, n, err
						}
					}
					i += 6
				default:
					n, err := bad(i+1, "in string escape code")
					return false, n, err
				}
			default:
				n, err := bad(i, "in string literal")
				return false, n, err
			}
		}
	}
value:
	// A value starts at b[i].
	if i >= len(b) {
		return more()
	}
	switch c := b[i]; {
	case c == '{':
		if len(stack) >= maxJSONDepth {
			return i, errors.New("exceeded max depth")
		}
		stack = append(stack, '{')
		i++
		ws()
		if i >= len(b) {
			return more()
		}
		if b[i] == '}' {
			i++
			stack = stack[:len(stack)-1]
			goto after
		}
		goto key
	case c == '[':
		if len(stack) >= maxJSONDepth {
			return i, errors.New("exceeded max depth")
		}
		stack = append(stack, '[')
		i++
		ws()
		if i >= len(b) {
			return more()
		}
		if b[i] == ']' {
			i++
			stack = stack[:len(stack)-1]
			goto after
		}
		goto value
	case c == '"':
		if ok, n, err := str(); !ok {
			return n, err
		}
		goto after
	case c == '-' || (c >= '0' && c <= '9'):
		// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
		if c == '-' {
			i++
			if i >= len(b) {
				return more()
			}
		}
		switch {
		case b[i] == '0':
			i++
		case b[i] >= '1' && b[i] <= '9':
			for i < len(b) && b[i] >= '0' && b[i] <= '9' {
				i++
			}
		default:
			return bad(i, "in numeric literal")
		}
		if i < len(b) && b[i] == '.' {
			i++
			if i >= len(b) {
				return more()
			}
			if b[i] < '0' || b[i] > '9' {
				return bad(i, "after decimal point in numeric literal")
			}
			for i < len(b) && b[i] >= '0' && b[i] <= '9' {
				i++
			}
		}
		if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
			i++
			if i < len(b) && (b[i] == '+' || b[i] == '-') {
				i++
			}
			if i >= len(b) {
				return more()
			}
			if b[i] < '0' || b[i] > '9' {
				return bad(i, "in exponent of numeric literal")
			}
			for i < len(b) && b[i] >= '0' && b[i] <= '9' {
				i++
			}
		}
		if i >= len(b) && !final {
			return more() // the number may go on
		}
		goto after
	case c == 't' || c == 'f' || c == 'n':
		lit := "true"
		if c == 'f' {
			lit = "false"
		} else if c == 'n' {
			lit = "null"
		}
		for k := 1; k < len(lit); k++ {
			if i+k >= len(b) {
				return more()
			}
			if b[i+k] != lit[k] {
				return bad(i+k, "in literal "+lit+" (expecting "+fmt.Sprintf("%q", lit[k])+")")
			}
		}
		i += len(lit)
		goto after
	default:
		return bad(i, "looking for beginning of value")
	}
key:
	// An object key starts at b[i].
	if b[i] != '"' {
		return bad(i, "looking for beginning of object key string")
	}
	if ok, n, err := str(); !ok {
		return n, err
	}
	ws()
	if i >= len(b) {
		return more()
	}
	if b[i] != ':' {
		return bad(i, "after object key")
	}
	i++
	ws()
	goto value
after:
	// A value ended just before b[i].
	if len(stack) == 0 {
		return i, nil
	}
	ws()
	if i >= len(b) {
		return more()
	}
	switch top := stack[len(stack)-1]; b[i] {
	case ',':
		i++
		ws()
		if i >= len(b) {
			return more()
		}
		if top == '{' {
			goto key
		}
		goto value
	case '}':
		if top != '{' {
			return bad(i, "after array element")
		}
	case ']':
		if top != '[' {
			return bad(i, "after object key:value pair")
		}
	default:
		if top == '{' {
			return bad(i, "after object key:value pair")
		}
		return bad(i, "after array element")
	}
	i++
	stack = stack[:len(stack)-1]
	goto after
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
