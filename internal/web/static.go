package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/incidentlib/incidentlib/internal/httpx"
)

//go:embed static
var staticFS embed.FS

// asset is one embedded file with its fingerprint.
type asset struct {
	name, hashed string // "style.css", "style.1a2b3c4d5e.css"
	etag         string
	ctype        string
	body         []byte
}

// assets serves the embedded static files. Pages link to fingerprinted
// names, which never change content and so are cached for a year; the plain
// names stay reachable with an ETag for anything that hard-codes them.
type assets struct {
	byPath map[string]*asset // "/static/..." → asset, both names
	byName map[string]*asset
}

func loadAssets() (*assets, error) {
	a := &assets{byPath: map[string]*asset{}, byName: map[string]*asset{}}
	err := fs.WalkDir(staticFS, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := staticFS.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		h := hex.EncodeToString(sum[:])[:10]
		name := strings.TrimPrefix(p, "static/")
		ext := path.Ext(name)
		ct := mime.TypeByExtension(ext)
		if ct == "" {
			ct = "application/octet-stream"
		}
		x := &asset{name: name, hashed: strings.TrimSuffix(name, ext) + "." + h + ext, etag: `"` + h + `"`, ctype: ct, body: body}
		a.byName[name] = x
		a.byPath["/static/"+x.name] = x
		a.byPath["/static/"+x.hashed] = x
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("web: read static assets: %w", err)
	}
	return a, nil
}

// url returns the fingerprinted address of an asset. An unknown name is a
// template bug; it yields a path that 404s so the browser test catches it.
func (a *assets) url(name string) string {
	if x := a.byName[name]; x != nil {
		return "/static/" + x.hashed
	}
	return "/static/missing/" + name
}

func (a *assets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	x := a.byPath[r.URL.Path]
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	if x == nil {
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintln(w, "no such static file")
		return
	}
	h.Set("Content-Type", x.ctype)
	h.Set("ETag", x.etag)
	if r.URL.Path == "/static/"+x.hashed {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "public, max-age=300, must-revalidate")
	}
	if match := r.Header.Get("If-None-Match"); match != "" && httpx.NoneMatch(match, x.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", fmt.Sprint(len(x.body)))
	if r.Method == http.MethodHead {
		return
	}
	w.Write(x.body)
}
