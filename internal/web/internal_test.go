package web

import (
	"strings"
	"testing"
)

func TestProse(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"paragraphs", "One line\nwrapped.\n\nTwo.", "<p>One line wrapped.</p><p>Two.</p>"},
		{"escaped", "a <b> & \"c\"", "<p>a &lt;b&gt; &amp; &#34;c&#34;</p>"},
		{"code span", "run `kubectl get <pods>` now", "<p>run <code>kubectl get &lt;pods&gt;</code> now</p>"},
		{"unpaired backtick", "it`s", "<p>it`s</p>"},
		{"bullets", "- one\n  more\n- two", "<ul><li>one more</li><li>two</li></ul>"},
		{"numbered", "1. first\n2. second", "<ol><li>first</li><li>second</li></ol>"},
		{"log line", "- the log:\n  E0228 12:00:01 x.go:1] failed {a, b}", `<ul><li>the log:<code class="literal">E0228 12:00:01 x.go:1] failed {a, b}</code></li></ul>`},
		{"prose after colon", "Three things:\nfirst the node went", "<p>Three things: first the node went</p>"},
		{"korean after colon", "로그:\n노드가 죽었다 {a}", "<p>로그: 노드가 죽었다 {a}</p>"},
		{"empty", "  \n ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(prose(tt.in)); got != tt.want {
				t.Errorf("prose(%q)\n got %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestSnippetHTML(t *testing.T) {
	for in, want := range map[string]string{
		"a <mark>conntrack</mark> &amp; b":           "a <mark>conntrack</mark> &amp; b",
		"x <mark>y</mark> <script>alert(1)</script>": "x y &lt;script&gt;alert(1)&lt;/script&gt;",
		"<img src=x onerror=alert(1)>":               "&lt;img src=x onerror=alert(1)&gt;",
	} {
		if got := string(snippetHTML(in)); got != want {
			t.Errorf("snippetHTML(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFold(t *testing.T) {
	if got := fold("- short\n- list", 50); got != "short list" {
		t.Errorf("fold of a short list = %q", got)
	}
	long := strings.Repeat("가나다 ", 50)
	got := fold(long, 20)
	if !strings.HasSuffix(got, "…") || len([]rune(got)) > 21 {
		t.Errorf("fold(long, 20) = %q", got)
	}
}

func TestFallbackPaths(t *testing.T) {
	for path, want := range map[string]bool{"/api/x": true, "/api": true, "/mcp": true, "/healthz": true, "/apis": false, "/mcpx": false, "/cases": false} {
		if got := isMachinePath(path); got != want {
			t.Errorf("isMachinePath(%q) = %v", path, got)
		}
	}
}
