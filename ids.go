package incidentlib

import (
	"cmp"
	"strings"
)

// IDPattern is the form of a case id, as a regular expression for schemas:
// IL- and four digits (IL-0049), or more digits without a leading zero
// (IL-12345), so that every number has exactly one id.
const IDPattern = `^IL-([0-9]{4}|[1-9][0-9]{4,})$`

// IDExample is the id that messages show as an example.
const IDExample = "IL-0049"

// maxIDDigits bounds the number of an id (below 10^18, so that it fits an
// int64 and compares as one).
const maxIDDigits = 18

// ValidID reports whether id has the form IDPattern describes.
func ValidID(id string) bool {
	_, ok := idNumber(id)
	return ok
}

// IDNumber returns the number of a valid id (IL-0049 is 49), and false
// for a string that is not one.
func IDNumber(id string) (int64, bool) { return idNumber(id) }

// idNumber returns the number of a valid id.
func idNumber(id string) (int64, bool) {
	digits, ok := strings.CutPrefix(id, "IL-")
	if !ok || len(digits) < 4 || len(digits) > maxIDDigits || (len(digits) > 4 && digits[0] == '0') {
		return 0, false
	}
	var n int64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// CompareIDs orders case ids by number (IL-9999 before IL-10000). Strings
// that are not ids come after every id, in byte order, so that the order
// is total whatever it is given.
func CompareIDs(a, b string) int {
	na, oka := idNumber(a)
	nb, okb := idNumber(b)
	switch {
	case oka && okb:
		return cmp.Compare(na, nb)
	case oka:
		return -1
	case okb:
		return 1
	}
	return strings.Compare(a, b)
}

// CompareCaseFiles orders paths such as cases/IL-0049.yaml by the id they
// are named after, and any other path after them in byte order.
func CompareCaseFiles(a, b string) int {
	ida, oka := caseFileID(a)
	idb, okb := caseFileID(b)
	switch {
	case oka && okb:
		if c := CompareIDs(ida, idb); c != 0 {
			return c
		}
	case oka:
		return -1
	case okb:
		return 1
	}
	return strings.Compare(a, b)
}

func caseFileID(p string) (string, bool) {
	base := p[strings.LastIndexByte(p, '/')+1:]
	id, ok := strings.CutSuffix(base, ".yaml")
	return id, ok && ValidID(id)
}
