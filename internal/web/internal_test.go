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

// TestMarkSnippetQuotes: a quotation in Latin script inside a search
// snippet (escaped text with marks) is marked lang="en" where its span can
// nest; a snippet with no Hangul is marked whole.
func TestMarkSnippetQuotes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`메시지 &#34;Failed to <mark>determine</mark> sign in&#34; 가 떴다`, `메시지 <span lang="en">&#34;Failed to <mark>determine</mark> sign in&#34;</span> 가 떴다`},
		{`메시지 “Can&#39;t sign in” 가 떴다`, `메시지 <span lang="en">“Can&#39;t sign in”</span> 가 떴다`},
		{`오류 &#34;상태가 나쁘다&#34; 를 냈다`, `오류 &#34;상태가 나쁘다&#34; 를 냈다`},
		{`<mark>오류</mark> &#34;Failed <mark>to&#34; 를</mark> 냈다`, `<mark>오류</mark> &#34;Failed <mark>to&#34; 를</mark> 냈다`},
		{`잘린 인용 &#34;context deadline exceeded while…`, `잘린 인용 <span lang="en">&#34;context deadline exceeded while…</span>`},
		{`TypeError: <mark>isDisabled</mark> is not a function`, `<span lang="en">TypeError: <mark>isDisabled</mark> is not a function</span>`},
	} {
		if got := markSnippetQuotes(c.in); got != c.want {
			t.Errorf("markSnippetQuotes(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	if got := plain("예외가 났다.\n\n```\nTypeError: x is not a function\n```\n\n끝."); got != "예외가 났다. “TypeError: x is not a function” 끝." {
		t.Errorf("plain of a code block: %q", got)
	}
}
