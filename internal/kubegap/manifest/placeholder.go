package manifest

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// PlaceholderField is a field whose value holds unrendered template text.
type PlaceholderField struct {
	// Path names the field as kubectl explain does, with list indexes:
	// spec.template.spec.containers[0].resources.limits.memory.
	Path string
	// Text is the template text in it (__DNS__MEMORY__LIMIT__).
	Text string
}

// DropPlaceholders makes an object that does not decode because of
// template placeholders into one that does, by leaving out the fields
// that hold them, and only those that must go: a placeholder in a string
// field (a domain in a ConfigMap, an image tag) stays, to be scanned as
// written. decodes says whether a candidate object decodes. It returns the
// object without those fields and the fields left out, or ok false when
// leaving out every field with a placeholder is not enough (or there is
// none).
func DropPlaceholders(raw []byte, decodes func([]byte) bool) (out []byte, dropped []PlaceholderField, ok bool) {
	if !bytes.Contains(raw, []byte("__")) && !bytes.Contains(raw, []byte("{{")) {
		return nil, nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, nil, false
	}
	var fields []PlaceholderField
	collectPlaceholders(root, "", &fields)
	if len(fields) == 0 {
		return nil, nil, false
	}
	drop := map[string]bool{}
	for _, f := range fields {
		drop[f.Path] = true
	}
	build := func() ([]byte, bool) {
		b, err := json.Marshal(without(root, "", drop))
		return b, err == nil && decodes(b)
	}
	out, ok = build()
	if !ok {
		return nil, nil, false
	}
	// Put back, one at a time, each field the object decodes with.
	for _, f := range fields {
		delete(drop, f.Path)
		if b, ok := build(); ok {
			out = b
			continue
		}
		drop[f.Path] = true
	}
	for _, f := range fields {
		if drop[f.Path] {
			dropped = append(dropped, f)
		}
	}
	return out, dropped, true
}

// collectPlaceholders lists the string values below v that hold template
// text, in the object's order of keys (sorted, as encoding/json gives them).
func collectPlaceholders(v any, path string, out *[]PlaceholderField) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			collectPlaceholders(v[k], joinPath(path, k), out)
		}
	case []any:
		for i, e := range v {
			collectPlaceholders(e, path+"["+strconv.Itoa(i)+"]", out)
		}
	case string:
		if t, _ := TemplateText([]byte(v)); t != "" {
			*out = append(*out, PlaceholderField{Path: path, Text: t})
		}
	}
}

func joinPath(path, key string) string {
	if strings.ContainsAny(key, ".[]") {
		key = strconv.Quote(key)
		return path + "[" + key + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// without copies v, leaving out the values at the paths in drop (a list
// element left out shortens its list).
func without(v any, path string, drop map[string]bool) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			p := joinPath(path, k)
			if drop[p] {
				continue
			}
			m[k] = without(e, p, drop)
		}
		return m
	case []any:
		l := make([]any, 0, len(v))
		for i, e := range v {
			p := path + "[" + strconv.Itoa(i) + "]"
			if drop[p] {
				continue
			}
			l = append(l, without(e, p, drop))
		}
		return l
	}
	return v
}
