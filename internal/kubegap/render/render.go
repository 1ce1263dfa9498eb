// Package render turns a Helm chart or a kustomize overlay into the
// Kubernetes objects it would apply, on this machine alone: charts render
// with the Helm SDK as `helm template` does (no cluster is contacted, lookup
// finds nothing), and overlays build with the kustomize API from the local
// file system (remote bases are refused, never fetched).
//
// Every object keeps where it came from: the template that produced it, or
// the file a kustomize resource was read from. Read hands the objects to the
// manifest reader's callback with that file as their location.
package render

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/manifest"
)

// Doc is one rendered document.
type Doc struct {
	// File is where the object came from: the template's path (on disk when
	// the chart is a folder, else as Helm names it inside the chart), or the
	// file a kustomize resource was read from.
	File string
	// Line is the line in File where the object starts, or 0 when it is not
	// known: a template's output lines are not the template's lines.
	Line int
	// FromTemplate is set when File is a chart template whose output YAML
	// is: its lines are the template's, which kubegap reads for the line
	// of a finding's field (templateFieldLine).
	FromTemplate bool
	// YAML is the document as rendered.
	YAML []byte
}

// Read passes every object of docs to fn, through the manifest reader,
// located at its Doc's File and Line. A document the manifest reader
// refuses gives an error at that file, with the line in the rendered
// output when the source line is not known.
func Read(docs []Doc, want manifest.Want, fn func(manifest.Doc) error) error {
	for _, d := range docs {
		err := manifest.Read(d.File, bytes.NewReader(d.YAML), want, func(md manifest.Doc) error {
			md.File = d.File
			md.Line = d.Line
			return fn(md)
		})
		var me *manifest.Error
		if errors.As(err, &me) && me.File == d.File {
			return relocate(d, me)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func relocate(d Doc, me *manifest.Error) error {
	if d.Line > 0 || me.Line == 0 {
		return &manifest.Error{File: d.File, Line: d.Line, Msg: me.Msg}
	}
	return &manifest.Error{File: d.File, Msg: fmt.Sprintf("%s (line %d of its rendered output)", me.Msg, me.Line)}
}

// Streams turns rendered documents into the inputs kubegap.ReadInput reads
// after its paths: one a document, named by its File, every object of it
// located at its Line (none when the line is not known).
func Streams(docs []Doc) []kubegap.Stream {
	out := make([]kubegap.Stream, len(docs))
	for i, d := range docs {
		out[i] = kubegap.Stream{Name: d.File, R: bytes.NewReader(d.YAML), Line: d.Line, FixedLine: true, FromTemplate: d.FromTemplate}
	}
	return out
}
