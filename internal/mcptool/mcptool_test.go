package mcptool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/mcptool"
)

type in struct {
	Word string `json:"word" jsonschema:"a word"`
}

type out struct {
	Echo string `json:"echo"`
}

func (o out) Summary() string { return "said " + o.Echo }

var about = incidentlib.Text{EN: "Echoes a word.", KO: "낱말을 되돌려줍니다."}

func echo(_ context.Context, _ *mcp.CallToolRequest, i in) (*mcp.CallToolResult, out, error) {
	switch i.Word {
	case "bad":
		return nil, out{}, errors.New("bad word; try another")
	case "boom":
		return nil, out{}, errors.New("disk on fire")
	}
	return nil, out{Echo: i.Word}, nil
}

func tool(name string, examples ...mcptool.Example) mcptool.Tool {
	return mcptool.New(&mcp.Tool{Name: name, Title: "Echo", Description: "Echo a word."}, about, examples, echo, mcptool.Options{
		Errors: func(err error) error {
			if err != nil && strings.Contains(err.Error(), "fire") {
				return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the tool failed"}
			}
			return err
		},
	})
}

// TestCheck: Check names each thing a tool lacks, and nothing for a
// complete list.
func TestCheck(t *testing.T) {
	good := tool("echo", mcptool.Example{Args: map[string]any{"word": "hi"}, Want: "hi"})
	if p := (mcptool.List{good}).Check(); len(p) > 0 {
		t.Errorf("a complete tool: %v", p)
	}
	noAbout := tool("echo2", mcptool.Example{Args: map[string]any{"word": "hi"}, Want: "hi"})
	noAbout.About.KO = ""
	for _, tc := range []struct {
		list mcptool.List
		want string
	}{
		{mcptool.List{tool("echo")}, "has no example call"},
		{mcptool.List{tool("echo", mcptool.Example{Args: map[string]any{"nope": 1}, Want: "x"})}, `names "nope"`},
		{mcptool.List{tool("echo", mcptool.Example{Args: map[string]any{"word": "x"}})}, "wants nothing"},
		{mcptool.List{good, good}, "two tools are named echo"},
		{mcptool.List{noAbout}, "no About in both languages"},
	} {
		if p := tc.list.Check(); !strings.Contains(strings.Join(p, "; "), tc.want) {
			t.Errorf("want a problem %q, got %v", tc.want, p)
		}
	}
}

// TestCalls: over the SDK's client, an answer comes as structured content
// with its summary as text; an error the caller can act on is an error
// result; a failure of the server a JSON-RPC error without its detail;
// arguments the schema refuses an error result.
func TestCalls(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	list := mcptool.List{tool("echo", mcptool.Example{Args: map[string]any{"word": "hi"}, Want: "hi"})}
	list.Install(srv)
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	call := func(args map[string]any) (*mcp.CallToolResult, error) {
		return cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args})
	}
	res, err := call(map[string]any{"word": "hi"})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "said hi" || !strings.Contains(string(mustJSON(t, res.StructuredContent)), `"echo":"hi"`) {
		t.Errorf("a good call: %v %+v", err, res)
	}
	if res, err := call(map[string]any{"word": "bad"}); err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "try another") {
		t.Errorf("a caller's error: %v %+v", err, res)
	}
	if _, err := call(map[string]any{"word": "boom"}); err == nil || strings.Contains(err.Error(), "fire") {
		t.Errorf("a server's failure: %v", err)
	}
	if res, err := call(map[string]any{"word": 3}); err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "validating") {
		t.Errorf("arguments the schema refuses: %v %+v", err, res)
	}
	if got := list.Names(); len(got) != 1 || got[0] != "echo" || list.Defs()[0].InputSchema == nil || list.Defs()[0].OutputSchema == nil {
		t.Errorf("Names %v, Defs %+v", got, list.Defs())
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
