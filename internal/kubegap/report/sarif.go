package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/manifest"
)

// The subset of SARIF 2.1.0 that GitHub code scanning reads.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	// OriginalURIBaseIDs says what the uriBaseId of relative artifact
	// locations stands for: the folder kubegap ran in.
	OriginalURIBaseIDs map[string]sarifBase `json:"originalUriBaseIds,omitempty"`
	Results            []sarifResult        `json:"results"`
}

type sarifBase struct {
	URI         string     `json:"uri,omitempty"`
	Description *sarifText `json:"description,omitempty"`
}

// srcRoot is the uriBaseId of paths relative to the folder kubegap ran in
// (the name GitHub code scanning and CodeQL use for the checkout).
const srcRoot = "%SRCROOT%"

// sarifInvocation carries what was read, the problems (as tool execution
// notifications) and the checks not evaluated (as configuration
// notifications).
type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications"`
	ToolConfigNotifications    []sarifNotification `json:"toolConfigurationNotifications"`
	Properties                 map[string]any      `json:"properties"`
}

type sarifNotification struct {
	Level      string              `json:"level"`
	Message    sarifText           `json:"message"`
	Locations  []sarifLocation     `json:"locations,omitempty"`
	Descriptor *sarifDescriptorRef `json:"descriptor,omitempty"`
	Associated *sarifDescriptorRef `json:"associatedRule,omitempty"`
	Properties map[string]any      `json:"properties,omitempty"`
}

type sarifDescriptorRef struct {
	ID    string `json:"id"`
	Index *int   `json:"index,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      sarifText      `json:"fullDescription"`
	Help                 sarifText      `json:"help"`
	DefaultConfiguration sarifConfig    `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          map[string]any    `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
	Properties       map[string]any `json:"properties,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	// Region is nil for a file with no line to point at (a packaged
	// chart's template): the result is about the whole file.
	Region *sarifRegion `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

type sarifLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

func sarifLevel(s checks.Severity) string {
	switch s {
	case checks.High:
		return "error"
	case checks.Medium:
		return "warning"
	}
	return "note"
}

// ruleName turns node-agent-unbounded-list into NodeAgentUnboundedList.
func ruleName(id string) string {
	var b strings.Builder
	for _, p := range strings.Split(id, "-") {
		if p != "" {
			b.WriteString(strings.ToUpper(p[:1]) + p[1:])
		}
	}
	return b.String()
}

func writeSARIF(w io.Writer, res *kubegap.Result, lang, version string) error {
	rules, index := sarifRules(lang)
	results := []sarifResult{}
	for _, f := range res.Findings {
		results = append(results, sarifResultOf(f, res, index, lang))
	}
	run := sarifRun{
		Tool:        sarifTool{Driver: sarifDriver{Name: "kubegap", Version: version, InformationURI: "https://github.com/incidentlib/incidentlib", Rules: rules}},
		Invocations: []sarifInvocation{sarifInvocationOf(res, index, lang)},
		Results:     results,
	}
	if usesBase(run) {
		run.OriginalURIBaseIDs = map[string]sarifBase{srcRoot: srcRootBase()}
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{run},
	}
	return writeJSON(w, log)
}

// sarifRules describes every check as a rule, in lang, and returns the
// rules and each check's index among them.
func sarifRules(lang string) ([]sarifRule, map[string]int) {
	all := checks.All()
	index := map[string]int{}
	rules := make([]sarifRule, 0, len(all))
	for i, c := range all {
		index[c.ID] = i
		rules = append(rules, sarifRule{
			ID:                   c.ID,
			Name:                 ruleName(c.ID),
			ShortDescription:     sarifText{Text: c.Title.In(lang)},
			FullDescription:      sarifText{Text: c.LooksAt.In(lang)},
			Help:                 sarifText{Text: c.Remediation.In(lang), Markdown: fmt.Sprintf("%s\n\nCases: %s. Run `kubegap explain %s` for their summaries.", c.Remediation.In(lang), strings.Join(c.Cases, ", "), c.ID)},
			DefaultConfiguration: sarifConfig{Level: sarifLevel(c.Severity)},
			Properties:           map[string]any{"tags": append([]string{"kubernetes", "reliability"}, c.Cases...), "precision": "medium"},
		})
	}
	return rules, index
}

// sarifResultOf is finding f as a result, located in its file, or for a
// live object at its API path.
func sarifResultOf(f checks.Finding, res *kubegap.Result, index map[string]int, lang string) sarifResult {
	loc := sarifLocation{LogicalLocations: []sarifLogical{{Name: f.Object.Name, FullyQualifiedName: f.Object.String(), Kind: f.Object.Kind}}}
	src, ok := res.Sources[f.Object]
	switch {
	case ok && src.File == manifest.StdinName:
		// Standard input is no artifact anyone can open: no URI is
		// made up for it; the line is kept as a property.
		loc.Properties = map[string]any{"input": "standard input", "line": src.Line}
	case ok && src.File != "":
		file, line := src.File, src.Line
		if f.FieldLine > 0 {
			line = f.FieldLine // the field at fault
			if f.FieldFile != "" {
				file = f.FieldFile // in a chart helper's define
			}
		}
		loc.PhysicalLocation = &sarifPhysical{ArtifactLocation: artifactOf(file)}
		if line > 0 {
			loc.PhysicalLocation.Region = &sarifRegion{StartLine: line}
		}
		if src.Template != "" {
			loc.Properties = map[string]any{"sourceTemplate": src.Template}
		}
	case res.Input == nil:
		// Live objects have no file; code scanning still needs one,
		// so the object's API path stands in for it.
		uri := "kubernetes/" + f.Object.Kind + "/"
		if f.Object.Namespace != "" {
			uri += f.Object.Namespace + "/"
		}
		loc.PhysicalLocation = &sarifPhysical{ArtifactLocation: sarifArtifact{URI: (&url.URL{Path: uri + f.Object.Name}).String()}, Region: &sarifRegion{StartLine: 1}}
	}
	props := map[string]any{"cases": f.Cases, "severity": f.Severity.String()}
	if src.NamespaceAssumed {
		props["namespaceAssumed"] = true
	}
	sum := sha256.Sum256([]byte(f.Check + "|" + f.Object.String()))
	return sarifResult{
		RuleID:              f.Check,
		RuleIndex:           index[f.Check],
		Level:               sarifLevel(f.Severity),
		Message:             sarifText{Text: fmt.Sprintf("%s: %s%s (%s)", f.Object, f.Message.In(lang), assumedNote(src, f.Object, lang), strings.Join(f.Cases, ", "))},
		Locations:           []sarifLocation{loc},
		PartialFingerprints: map[string]string{"kubegapObject/v1": hex.EncodeToString(sum[:16])},
		Properties:          props,
	}
}

// sarifInvocationOf is the run's invocation: the input's problems, the
// checks not or partly evaluated, and what was read.
func sarifInvocationOf(res *kubegap.Result, index map[string]int, lang string) sarifInvocation {
	inv := sarifInvocation{ExecutionSuccessful: true, ToolExecutionNotifications: sarifProblems(res), ToolConfigNotifications: []sarifNotification{}}
	for _, ne := range res.NotEvaluated {
		i, ok := index[ne.Check]
		n := sarifNotification{Level: "warning", Message: sarifText{Text: fmt.Sprintf("%s was not evaluated: %s", ne.Check, ne.Reason)}}
		if ok {
			n.Associated = &sarifDescriptorRef{ID: ne.Check, Index: &i}
		}
		inv.ToolConfigNotifications = append(inv.ToolConfigNotifications, n)
	}
	partial := []string{}
	for _, p := range res.Partial {
		i, ok := index[p.Check]
		n := sarifNotification{Level: "note", Message: sarifText{Text: fmt.Sprintf("%s was partially evaluated: %s", p.Check, p.Reason(lang))},
			Properties: map[string]any{"missingKinds": p.Missing}}
		if ok {
			n.Associated = &sarifDescriptorRef{ID: p.Check, Index: &i}
		}
		inv.ToolConfigNotifications = append(inv.ToolConfigNotifications, n)
		partial = append(partial, p.Check)
	}
	in := inputOf(res)
	notEval := []string{}
	for _, ne := range res.NotEvaluated {
		notEval = append(notEval, ne.Check)
	}
	inv.Properties = map[string]any{
		"filesRead": in.Files, "objectsRead": in.Objects, "objectsChecked": in.Checked,
		"filesSkipped": len(in.SkippedFiles), "skippedFiles": in.SkippedFiles, "skippedObjects": in.SkippedObjects,
		"problems": len(res.Problems), "checksSelected": res.Checks, "checksEvaluated": res.Evaluated(),
		"checksNotEvaluated": notEval, "checksPartial": partial, "apiRequests": res.APIRequests,
	}
	return inv
}

// sarifProblems are the input's problems as notifications, located in
// their files (standard input is no artifact).
func sarifProblems(res *kubegap.Result) []sarifNotification {
	out := []sarifNotification{}
	for _, p := range res.Problems {
		n := sarifNotification{Level: "error", Message: sarifText{Text: p.String()}}
		if p.Level == manifest.LevelWarning {
			n.Level = "warning"
		}
		for _, pl := range append([]manifest.Place{{File: p.File, Line: p.Line}}, p.Also...) {
			if pl.File == manifest.StdinName || pl.File == "" {
				continue
			}
			loc := &sarifPhysical{ArtifactLocation: artifactOf(pl.File)}
			if pl.Line > 0 {
				loc.Region = &sarifRegion{StartLine: pl.Line}
			}
			n.Locations = append(n.Locations, sarifLocation{PhysicalLocation: loc})
		}
		if o := p.Object(); o != "" {
			n.Properties = map[string]any{"object": o}
		}
		out = append(out, n)
	}
	return out
}

// artifactOf is the artifact location of a file: a relative path is
// relative to %SRCROOT%, the folder kubegap ran in.
func artifactOf(file string) sarifArtifact {
	a := sarifArtifact{URI: artifactURI(file)}
	if !filepath.IsAbs(file) {
		a.URIBaseID = srcRoot
	}
	return a
}

// usesBase says whether any location of run is relative to %SRCROOT%.
func usesBase(run sarifRun) bool {
	for _, r := range run.Results {
		for _, l := range r.Locations {
			if l.PhysicalLocation != nil && l.PhysicalLocation.ArtifactLocation.URIBaseID != "" {
				return true
			}
		}
	}
	for _, inv := range run.Invocations {
		for _, n := range inv.ToolExecutionNotifications {
			for _, l := range n.Locations {
				if l.PhysicalLocation != nil && l.PhysicalLocation.ArtifactLocation.URIBaseID != "" {
					return true
				}
			}
		}
	}
	return false
}

// srcRootBase says what %SRCROOT% is: the working folder, as an absolute
// file URI ending in a slash, as SARIF requires; only described when the
// folder cannot be known.
func srcRootBase() sarifBase {
	b := sarifBase{Description: &sarifText{Text: "The folder kubegap ran in; relative paths given to it are relative to this folder."}}
	if wd, err := os.Getwd(); err == nil {
		u := artifactURI(wd)
		if !strings.HasSuffix(u, "/") {
			u += "/"
		}
		b.URI = u
	}
	return b
}

// artifactURI names a file as SARIF wants it: an absolute path (as given
// to -f) is an absolute file:// URI; a relative one stays a relative URI
// reference, which code scanning resolves against the repository root where
// kubegap usually runs. Forward slashes and percent-encoding either way.
func artifactURI(file string) string {
	if filepath.IsAbs(file) {
		p := filepath.ToSlash(filepath.Clean(file))
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // C:/x is file:///C:/x
		}
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: filepath.ToSlash(filepath.Clean(file))}).String()
}
