package view

import (
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/incidentlib/incidentlib/internal/search"
)

// AppendJSON appends r as encoding/json writes it with HTML escaping off,
// byte for byte (TestAppendJSONMatchesEncodingJSON holds it to that), but
// without reflection: a search answer is the API's hottest body.
func (r SearchResponse) AppendJSON(b []byte) []byte {
	b = append(b, `{"items":`...)
	if r.Items == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
	}
	for i, it := range r.Items {
		if i > 0 {
			b = append(b, ',')
		}
		if it.head != nil {
			b = append(b, it.head...)
		} else {
			b = it.appendHead(b)
		}
		b = append(b, `,"score":`...)
		b = appendFloat(b, it.Score)
		b = append(b, `,"match":`...)
		b = appendFloat(b, it.Match)
		b = append(b, `,"snippet":`...)
		if it.snippetSafe {
			// A search's snippet holds nothing JSON escapes (search.Hit.Snippet).
			b = append(b, '"')
			b = append(b, it.Snippet...)
			b = append(b, '"')
		} else {
			b = appendString(b, it.Snippet)
		}
		b = append(b, `,"url":`...)
		b = appendString(b, it.URL)
		b = append(b, '}')
	}
	if r.Items != nil {
		b = append(b, ']')
	}
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(r.Total), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(r.Offset), 10)
	b = append(b, `,"limit":`...)
	b = strconv.AppendInt(b, int64(r.Limit), 10)
	if len(r.Facets) > 0 {
		b = append(b, `,"facets":`...)
		b = append(b, '{')
		keys := make([]string, 0, len(r.Facets))
		for k := range r.Facets {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = appendFacets(b, r.Facets[k])
		}
		b = append(b, '}')
	}
	if len(r.Notes) > 0 {
		b = append(b, `,"notes":[`...)
		for i, n := range r.Notes {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, n)
		}
		b = append(b, ']')
	}
	b = append(b, `,"terms":`...)
	b = strconv.AppendInt(b, int64(r.Terms), 10)
	b = append(b, `,"close":`...)
	b = strconv.AppendInt(b, int64(r.Close), 10)
	return append(b, '}')
}

// appendHead writes the item's JSON from its start to its root_cause.
func (it *SearchItem) appendHead(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, it.ID)
	b = append(b, `,"org":`...)
	b = appendString(b, it.Org)
	b = append(b, `,"date":`...)
	b = appendString(b, it.Date)
	b = append(b, `,"title":{"en":`...)
	b = appendString(b, it.Title.EN)
	b = append(b, `,"ko":`...)
	b = appendString(b, it.Title.KO)
	b = append(b, `},"root_cause":`...)
	return appendString(b, it.RootCause)
}

func appendFacets(b []byte, fs []search.FacetCount) []byte {
	if fs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, f := range fs {
		if i > 0 {
			b = append(b, ',')
		}
		b = f.AppendJSON(b)
	}
	return append(b, ']')
}

// appendFloat writes f as encoding/json does (ES6 number formatting). NaN
// and infinities, which encoding/json refuses, are written as 0: scores
// are finite.
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, '0')
	}
	abs := math.Abs(f)
	fmt := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		fmt = 'e'
	}
	b = strconv.AppendFloat(b, f, fmt, -1, 64)
	if fmt == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hex = "0123456789abcdef"

// lo and hi are the low and the high bit of each byte of a word.
const (
	lo = 0x0101010101010101
	hi = 0x8080808080808080
)

// plain marks the ASCII bytes a JSON string holds as they are.
var plain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendString writes s as a JSON string as encoding/json does with HTML
// escaping off: quotes, backslashes and control characters escaped,
// U+2028 and U+2029 escaped, invalid UTF-8 replaced by U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight plain ASCII bytes at a time: none below 0x20, none a quote
		// or a backslash, none with the high bit.
		for i+8 <= len(s) {
			v := binary.LittleEndian.Uint64([]byte(s[i : i+8]))
			ctl := v - lo*0x20          // a byte below 0x20 borrows
			quote := (v ^ lo*'"') - lo  // a quote becomes 0, and borrows
			slash := (v ^ lo*'\\') - lo // so does a backslash
			if (ctl|quote|slash|v)&hi != 0 {
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			if plain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		// Three-byte characters (all of Hangul) that are valid and not a
		// line or paragraph separator pass without decoding.
		// (E0 may be overlong, E2 holds the separators, ED surrogates.)
		if c := s[i]; (c == 0xE1 || c >= 0xE3 && c <= 0xEC || c == 0xED && i+1 < len(s) && s[i+1] < 0xA0) &&
			i+2 < len(s) && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 {
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
