// Package sariftest validates SARIF logs against the OASIS SARIF 2.1.0
// JSON schema, for tests. The schema is not kept in this repository: it
// comes from a Go module on the module proxy that ships it (gosec's SARIF
// test data, errata01 of 2.1.0), through the go command's module cache.
package sariftest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaModule is the module version whose files hold the schema, and
// SchemaPath the file in it.
const (
	SchemaModule = "github.com/securego/gosec/v2@v2.30.0"
	SchemaPath   = "report/sarif/testdata/sarif-schema-2.1.0.json"
	schemaID     = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)

var (
	once    sync.Once
	schema  *jsonschema.Schema
	errLoad error
)

// SchemaFile returns the schema's path in the module cache, downloading
// the module when it is not there yet.
func SchemaFile() (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", SchemaModule)
	cmd.Dir = os.TempDir() // outside any module: nothing to change
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GO111MODULE=on")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	_ = json.Unmarshal(out, &info)
	if err != nil || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %v %s %s", SchemaModule, err, info.Error, stderr.String())
	}
	return filepath.Join(info.Dir, SchemaPath), nil
}

func load() (*jsonschema.Schema, error) {
	once.Do(func() {
		path, err := SchemaFile()
		if err != nil {
			errLoad = err
			return
		}
		f, err := os.Open(path)
		if err != nil {
			errLoad = err
			return
		}
		defer f.Close()
		doc, err := jsonschema.UnmarshalJSON(f)
		if err != nil {
			errLoad = fmt.Errorf("%s: %w", path, err)
			return
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource(schemaID, doc); err != nil {
			errLoad = err
			return
		}
		schema, errLoad = c.Compile(schemaID)
	})
	return schema, errLoad
}

// Required reports whether a test must fail rather than skip when the
// schema cannot be had (CI sets KUBEGAP_REQUIRE_SARIF_SCHEMA=1).
func Required() bool {
	return os.Getenv("KUBEGAP_REQUIRE_SARIF_SCHEMA") == "1" || os.Getenv("CI") == "true"
}

// Check validates data against the schema; it returns the schema's
// complaints, or an error when the schema cannot be loaded.
func Check(data []byte) error {
	s, err := load()
	if err != nil {
		return fmt.Errorf("load the SARIF schema: %w", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return s.Validate(v)
}

// Validate fails t when data is not a valid SARIF 2.1.0 log. When the
// schema cannot be loaded it skips t, unless Required.
func Validate(t testing.TB, data []byte) {
	t.Helper()
	if _, err := load(); err != nil {
		if Required() {
			t.Fatalf("SARIF schema: %v", err)
		}
		t.Skipf("SARIF schema not available (%v); set KUBEGAP_REQUIRE_SARIF_SCHEMA=1 to fail instead", err)
	}
	if err := Check(data); err != nil {
		t.Errorf("the SARIF log does not pass the SARIF 2.1.0 schema:\n%v\n%s", err, data)
	}
}
