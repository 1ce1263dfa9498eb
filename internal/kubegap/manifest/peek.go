package manifest

import "encoding/json"

// peekHeader reads apiVersion and kind from the top level of a JSON object
// without decoding the rest: kubectl writes keys sorted, so both come
// first, and for the kinds no check reads nothing more is looked at. ok is
// false when the quick scan cannot tell; callers then decode properly.
func peekHeader(b []byte) (h header, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return h, false
	}
	i++
	var haveAPI, haveKind bool
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return h, false
		}
		key, next, plain := readString(b, i)
		if !plain {
			return h, false
		}
		i = skipSpace(b, next)
		if i >= len(b) || b[i] != ':' {
			return h, false
		}
		i = skipSpace(b, i+1)
		if i >= len(b) {
			return h, false
		}
		if key == "apiVersion" || key == "kind" {
			if b[i] != '"' {
				return h, false
			}
			v, next, plain := readString(b, i)
			if !plain {
				return h, false
			}
			if key == "kind" {
				if haveKind {
					return h, false // duplicate keys: let the real decoder decide
				}
				h.Kind, haveKind = v, true
			} else {
				if haveAPI {
					return h, false
				}
				h.APIVersion, haveAPI = v, true
			}
			i = next
		} else {
			// Another key before both are known: give up rather than skip.
			return h, false
		}
		if haveAPI && haveKind {
			return h, true
		}
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != ',' {
			return h, false
		}
		i++
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// readString reads the JSON string starting at b[i] == '"'. plain is false
// when it holds escapes or is unterminated.
func readString(b []byte, i int) (s string, next int, plain bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			return "", 0, false
		case '"':
			return string(b[i+1 : j]), j + 1, true
		}
		if b[j] < 0x20 {
			return "", 0, false
		}
	}
	return "", 0, false
}

// itemHeader returns an item's header, quickly when it can.
func itemHeader(it []byte) (header, error) {
	if h, ok := peekHeader(it); ok {
		return h, nil
	}
	var h header
	err := json.Unmarshal(it, &h)
	return h, err
}
