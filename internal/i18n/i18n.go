// Package i18n holds the interface strings of every face of the product in
// Korean and English.
package i18n

import "fmt"

// Langs are the supported languages; the first is the default.
var Langs = []string{"ko", "en"}

// Valid reports whether lang is a supported language.
func Valid(lang string) bool { return lang == "ko" || lang == "en" }

// ParseLang checks a language parameter: empty gives def, ko and en pass,
// anything else is an error that says what is accepted.
func ParseLang(l, def string) (string, error) {
	switch l {
	case "":
		return def, nil
	case "ko", "en":
		return l, nil
	}
	if len(l) > 20 {
		l = l[:20] + "…"
	}
	return "", fmt.Errorf("lang %q is not supported; use ko or en", l)
}

// T returns the string key in lang; a missing key shows as itself so that
// the test that every key exists in both languages can find it.
func T(lang, key string) string {
	if m, ok := messages[lang]; ok {
		if s, ok := m[key]; ok {
			return s
		}
	}
	return key
}

// Tf formats the string key in lang with args.
func Tf(lang, key string, args ...any) string { return fmt.Sprintf(T(lang, key), args...) }

// Keys returns every key of lang, for tests.
func Keys(lang string) []string {
	var ks []string
	for k := range messages[lang] {
		ks = append(ks, k)
	}
	return ks
}

var messages = map[string]map[string]string{
	"ko": {
		"date_kind.incident":  "발생일",
		"date_kind.published": "게시일",
		"severity":            "심각도",
		"impact.scope":        "영향 범위",
		"impact.users":        "영향 사용자",
		"impact.region":       "지역",
		"detected_after":      "감지까지",
		"resolved_after":      "복구까지",
		"symptoms":            "증상",
		"cause":               "원인",
		"trigger":             "촉발",
		"detection":           "감지",
		"remediation":         "조치",
		"action_items":        "후속 조치",
		"lessons":             "교훈",
		"sources":             "출처",
		"timeline":            "타임라인",
		"archived":            "보관본",
		"related":             "관련 사례",
		"components":          "구성 요소",
		"contributing":        "기여 요인",
		"domain":              "분야",
		"root_cause":          "원인",
		"not_reviewed":        "아직 사람이 검토하지 않은 사례입니다",
		"reviewed_by":         "검토: %s (%s)",
		"unknown":             "–",
		"none":                "없음",
		"valid_cases":         "유효한 사례 %d건 (파일 %d개 중)",
	},
	"en": {
		"date_kind.incident":  "incident date",
		"date_kind.published": "published",
		"severity":            "Severity",
		"impact.scope":        "Scope",
		"impact.users":        "Users affected",
		"impact.region":       "Region",
		"detected_after":      "Time to detect",
		"resolved_after":      "Time to resolve",
		"symptoms":            "Symptoms",
		"cause":               "Cause",
		"trigger":             "Trigger",
		"detection":           "Detection",
		"remediation":         "Remediation",
		"action_items":        "Action items",
		"lessons":             "Lessons",
		"sources":             "Sources",
		"timeline":            "Timeline",
		"archived":            "archived",
		"related":             "Related cases",
		"components":          "Components",
		"contributing":        "Contributing factors",
		"domain":              "Domain",
		"root_cause":          "Root cause",
		"not_reviewed":        "Not yet reviewed by a person",
		"reviewed_by":         "Reviewed by %s (%s)",
		"unknown":             "–",
		"none":                "none",
		"valid_cases":         "%d valid cases (of %d files)",
	},
}
