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
)

// The subset of SARIF 2.1.0 that GitHub code scanning reads.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
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
	PhysicalLocation sarifPhysical  `json:"physicalLocation"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
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
	results := []sarifResult{}
	for _, f := range res.Findings {
		loc := sarifLocation{LogicalLocations: []sarifLogical{{Name: f.Object.Name, FullyQualifiedName: f.Object.String(), Kind: f.Object.Kind}}}
		if src, ok := res.Sources[f.Object]; ok && src.File != "" && src.File != "<stdin>" {
			loc.PhysicalLocation = sarifPhysical{ArtifactLocation: sarifArtifact{URI: artifactURI(src.File)}, Region: sarifRegion{StartLine: max(src.Line, 1)}}
		} else {
			// Live objects have no file; code scanning still needs one.
			uri := "kubernetes/" + f.Object.Kind + "/"
			if f.Object.Namespace != "" {
				uri += f.Object.Namespace + "/"
			}
			loc.PhysicalLocation = sarifPhysical{ArtifactLocation: sarifArtifact{URI: uri + f.Object.Name}, Region: sarifRegion{StartLine: 1}}
		}
		sum := sha256.Sum256([]byte(f.Check + "|" + f.Object.String()))
		results = append(results, sarifResult{
			RuleID:              f.Check,
			RuleIndex:           index[f.Check],
			Level:               sarifLevel(f.Severity),
			Message:             sarifText{Text: fmt.Sprintf("%s: %s (%s)", f.Object, f.Message.In(lang), strings.Join(f.Cases, ", "))},
			Locations:           []sarifLocation{loc},
			PartialFingerprints: map[string]string{"kubegapObject/v1": hex.EncodeToString(sum[:16])},
			Properties:          map[string]any{"cases": f.Cases, "severity": f.Severity.String()},
		})
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs: []sarifRun{{
			Tool:    sarifTool{Driver: sarifDriver{Name: "kubegap", Version: version, InformationURI: "https://github.com/incidentlib/incidentlib", Rules: rules}},
			Results: results,
		}},
	}
	return writeJSON(w, log)
}

// artifactURI names a file as SARIF wants it: a relative URI reference when
// the file is under the working directory (code scanning resolves those
// against the repository root, where kubegap usually runs), else an
// absolute file:// URI; forward slashes and percent-encoding either way.
func artifactURI(file string) string {
	abs, err := filepath.Abs(file)
	if err != nil {
		return (&url.URL{Path: filepath.ToSlash(filepath.Clean(file))}).String()
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return (&url.URL{Path: filepath.ToSlash(rel)}).String()
		}
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}
