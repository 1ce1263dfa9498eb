package web

import "github.com/incidentlib/incidentlib/internal/locale"

// T returns the words key in lang from the catalogue (internal/locale).
func T(lang, key string) string { return locale.T(lang, key) }

// Tf formats the words key in lang with args.
func Tf(lang, key string, args ...any) string { return locale.Tf(lang, key, args...) }
