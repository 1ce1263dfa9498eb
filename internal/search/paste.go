package search

import (
	"regexp"
	"strings"
)

// Reading a paste. People and agents paste what they see: log lines with
// timestamps, addresses, ports, ids, pod-name hashes, klog prefixes, log
// levels and the callers' file:line. Those parts say when and where, not
// what went wrong, and they match cases by accident (a port number, the
// "0" of an address). readPaste blanks them out line by line, so that the
// error's own words are what the query is read as, and turns the few of
// them that do carry meaning into words: a well-known port names its
// service (:53 is DNS), and some error signatures name what they mean
// (too many open files is a file-descriptor limit).
//
// Everything here is query analysis: the index and its terms are as the
// analyzer makes them for the cases.

// chars is a set of the characters that the patterns below cannot match
// without: a time needs a digit and a colon, a host name a dot. A line is
// scanned for them once, and a pattern whose characters the line lacks is
// not run: most queries are words alone, and the regular expressions were
// most of the cost of reading one. A pattern only blanks parts or puts a
// service's name in their place, never one of these characters, so what a
// line lacks at its start it lacks throughout.
type chars uint16

const (
	digit chars = 1 << iota
	colon
	equals
	quote
	bracket // [
	hash
	slash
	dot
	dash // only before a pattern puts a name (kube-apiserver) in
	comma
)

// charsOf is the set of the characters of line.
func charsOf(line string) chars {
	var c chars
	for i := 0; i < len(line); i++ {
		switch b := line[i]; {
		case b >= '0' && b <= '9':
			c |= digit
		case b == ':':
			c |= colon
		case b == '=':
			c |= equals
		case b == '"':
			c |= quote
		case b == '[':
			c |= bracket
		case b == '#':
			c |= hash
		case b == '/':
			c |= slash
		case b == '.':
			c |= dot
		case b == '-':
			c |= dash
		case b == ',':
			c |= comma
		}
	}
	return c
}

// all reports whether c holds every character of need.
func (c chars) all(need chars) bool { return c&need == need }

// any reports whether c holds some character of need.
func (c chars) any(need chars) bool { return c&need != 0 }

// A gate says whether a pattern may match a line holding the characters c.
type gate func(c chars) bool

// has is the gate of a pattern that needs every character of need.
func has(need chars) gate { return func(c chars) bool { return c.all(need) } }

// hasAny is the gate of a pattern each of whose alternatives needs one
// character of need.
func hasAny(need chars) gate { return func(c chars) bool { return c.any(need) } }

// always is the gate of a pattern that can match any line.
func always(chars) bool { return true }

// gated is a pattern with its gate.
type gated struct {
	re   *regexp.Regexp
	gate gate
}

// noise is one kind of part that counts for nothing, in the order they are
// tried on a line (earlier ones may hold later ones: a klog prefix holds a
// time and a file:line).
var noise = []gated{
	// klog/glog prefix: E1202 05:40:21.123456    1 file.go:123]
	{regexp.MustCompile(`\b[IWEF]\d{4} \d{2}:\d{2}:\d{2}(?:\.\d+)?\s+\d+\s+[\w./-]+:\d+\]`), has(digit | colon)},
	// dmesg's seconds since boot: [12345.678901]
	{regexp.MustCompile(`\[\s*\d+\.\d+\]`), has(digit | bracket | dot)},
	// nginx's error log: the process and thread, and the connection
	// number: 31#31: *8812; the request line it quotes, whose path and
	// protocol are the reader's own ("POST /api/v1/avatar HTTP/1.1"),
	// and its field names (", client: ", ", server: ").
	{regexp.MustCompile(`\b\d+#\d+: (?:\*\d+\b)?`), has(digit | hash)},
	{regexp.MustCompile(`"(?:GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|CONNECT) [^"\s]* HTTP/\d(?:\.\d)?"`), has(quote | slash)},
	{regexp.MustCompile(`, (?:client|server|request|upstream|host|referrer): `), has(comma | colon)},
	// dates and times: 2024-12-02T05:40:21.123Z, 2024/12/02 05:40:21,
	// Dec  2 05:40:21, 05:40:21.123
	{regexp.MustCompile(`\b\d{4}[-/]\d{2}[-/]\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2}\b)?`), has(digit)},
	{regexp.MustCompile(`\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d{1,2} \d{2}:\d{2}:\d{2}\b`), has(digit | colon)},
	{regexp.MustCompile(`\b\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2}\b)?`), has(digit | colon)},
	// callers: proxier.go:610, (Main.java:42), caller=etcdserver/util.go:170
	{regexp.MustCompile(`[\w./-]+\.(?:go|py|java|kt|scala|rb|js|ts|c|cc|cpp|h|rs|cs|php|ex|erl):\d+(?::\d+)?`), has(digit | colon | dot)},
	// UUIDs and long hex ids (container ids, digests, trace ids, 0x…)
	{regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`), has(dash)},
	{regexp.MustCompile(`(?i)\b0x[0-9a-f]+\b`), has(digit)},
	// log levels where a logger writes them: level=error, "level":"warn",
	// [error], and a level word at the start of a line
	{regexp.MustCompile(`(?i)\b(?:level|lvl|severity)=\w+|"(?:level|lvl|severity)"\s*:\s*"\w+"|\[(?:info|warn|warning|error|debug|notice|crit|fatal|trace)\]`), hasAny(equals | quote | bracket)},
	{regexp.MustCompile(`(?i)^\s*(?:info|warn|warning|error|debug|notice|crit|critical|fatal|trace)\b:?`), always},
	// Helm's frame of a failed command: Error: INSTALLATION FAILED: …,
	// UPGRADE FAILED: …. It names the command that failed, as a log level
	// names a severity; the message after it says what went wrong.
	{regexp.MustCompile(`\b(?:INSTALLATION|UPGRADE) FAILED:`), has(colon)},
	// the keys of logfmt and JSON lines that say when and where:
	// ts=…, "caller":"…", request_id=…
	{regexp.MustCompile(`(?i)\b(?:ts|time|timestamp|caller|logger|pid|tid|trace_?id|span_?id|request_?id|x-request-id|resourceversion|uid)=(?:"[^"]*"|\S+)`), has(equals)},
	{regexp.MustCompile(`(?i)"(?:ts|time|timestamp|@timestamp|caller|logger|pid|tid|trace_?id|span_?id|request_?id|resourceVersion|uid)"\s*:\s*(?:"[^"]*"|[\d.e+-]+)`), has(quote | colon)},
}

// hexID is how a word made of hexadecimal digits is told from a word: it
// is long (at least 8) and holds both digits and letters.
func hexID(s string) bool {
	if len(s) < 8 {
		return false
	}
	digit, letter := false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F':
			letter = true
		default:
			return false
		}
	}
	return digit && letter
}

var (
	// hexWord is a candidate hex id (hexID decides): a container id, a
	// digest, a trace id.
	hexWord = regexp.MustCompile(`(?i)\b(?:sha256:)?[0-9a-f]{8,}\b`)
	// ipPort is an IPv4 address with its optional prefix length and port.
	ipPort = regexp.MustCompile(`\b\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?(?::(\d{1,5}))?\b`)
	// ipv6 is an IPv6 address in its short form (it holds "::") or in
	// full, with an optional port after brackets.
	ipv6 = regexp.MustCompile(`(?i)\[?\b(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}\b\]?(?::\d{1,5})?|\[?(?:[0-9a-f]{1,4})?(?::[0-9a-f]{1,4})*::(?:[0-9a-f]{1,4})?(?::[0-9a-f]{1,4})*\]?(?::\d{1,5})?`)
	// port is a port after a host name: kube-dns.kube-system:53.
	port = regexp.MustCompile(`([A-Za-z0-9\]])[:](\d{2,5})\b`)
	// podName is a pod of a Deployment (name-<replica set hash>-<5>) or of
	// a DaemonSet or Job (name-<5>), whose random suffixes use the letters
	// and digits Kubernetes draws them from; the suffix of 5 must hold a
	// digit, so that words such as ingress-nginx stay whole.
	podName = regexp.MustCompile(`\b([a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*?)(?:-[bcdfghjklmnpqrstvwxz2456789]{6,10})?-([bcdfghjklmnpqrstvwxz2456789]{5})\b`)
	// hostName is a dotted name of three parts or more, or of two ending
	// in a common top-level domain: a host, a Service's DNS name, a
	// package path. Its parts are the reader's own names (a service, a
	// namespace, a domain), not what went wrong.
	hostName = regexp.MustCompile(`(?i)\b[a-z][a-z0-9-]*(?:\.[a-z0-9-]+){2,}\b|\b[a-z][a-z0-9-]*\.(?:com|net|org|io|dev|local|internal|svc)\b`)
	// bigNumber is a number of five digits or more: byte counts, resource
	// versions, ports and ids.
	bigNumber = regexp.MustCompile(`\b\d{5,}\b`)
	// slashPair is a compound of a single letter, a slash and a single
	// letter, i/o: the letters alone match any text with an "I/O".
	slashPair = regexp.MustCompile(`(?i)\b[a-z]/[a-z]\b`)
	// logKey is the key of a logfmt pair (msg=, err=) or a JSON member
	// ("msg":): the value is the message, the key says nothing.
	logKey = regexp.MustCompile(`\b[a-z_][a-z0-9_.-]*=|"[A-Za-z_@][\w.-]*"\s*:`)
)

// signatureWord is a word shaped like an error signature rather than
// prose: CamelCase (InvalidCursorName, MaxVolumeCount), snake_case
// (conntrack_allowance_exceeded, ZONE_RESOURCE_POOL_EXHAUSTED), letters
// with digits (x509, accept4) and hyphenated names whose parts
// are words (gke-gcloud-auth-plugin, systemd-networkd).
// An API version (v1, v2beta1) is no signature: any request path holds one.
var apiVersion = regexp.MustCompile(`^v\d+(?:(?:alpha|beta)\d+)?$`)

var signatureWord = regexp.MustCompile(`\b(?:[A-Za-z]*[a-z][A-Z][A-Za-z0-9]*|[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+|[A-Za-z]+[0-9]+[A-Za-z0-9]*|[A-Za-z0-9]{3,}(?:-[A-Za-z0-9]{3,})+)\b`)

// signatureEvidence is how many times its rarity a signature word's term
// weighs in the confidence.
const signatureEvidence = 2

// wellKnownPorts names the service of a port a paste shows: an address on
// port 53 is a DNS server, whatever its number.
var wellKnownPorts = map[string]string{
	"53": "dns", "443": "https", "2379": "etcd", "2380": "etcd", "6443": "kube-apiserver",
	"10250": "kubelet", "5432": "postgres", "3306": "mysql", "6379": "redis", "9092": "kafka",
	"2181": "zookeeper", "27017": "mongodb", "9200": "elasticsearch", "11211": "memcached",
	"8500": "consul", "179": "bgp",
}

// signatures are error messages whose words do not say what they mean:
// the words they stand for are added to the query. Each is matched
// case-insensitively as a whole phrase.
var signatures = []struct {
	re    *regexp.Regexp
	means string
}{
	{regexp.MustCompile(`(?i)\btoo many open files\b|\bEMFILE\b|\bENFILE\b`), "file descriptors"},
	{regexp.MustCompile(`(?i)\bECONNREFUSED\b`), "connection refused"},
	{regexp.MustCompile(`(?i)\bECONNRESET\b`), "connection reset"},
	{regexp.MustCompile(`(?i)\bsignal: killed\b|\bSIGKILL\b`), "killed"},
	{regexp.MustCompile(`(?i)\bresource temporarily unavailable\b|\bEAGAIN\b`), "thread limit"},
}

// pasteRead is what readPaste found in a text.
type pasteRead struct {
	text   string // the text with its noise blanked out, one line a line
	noise  int    // how many parts were blanked
	lines  int    // how many lines hold words
	expand []string
}

// readPaste blanks the noise of text line by line and lists the words its
// ports and signatures stand for. keep reports whether the index holds a
// token whole ("1.1.1.1" names a resolver); such tokens stay.
func readPaste(text string, keep func(string) bool) pasteRead {
	return readPasteGated(text, keep, true)
}

// readPasteGated is readPaste, with the patterns' gates (chars) obeyed or,
// for the test that holds them to the patterns, not.
func readPasteGated(text string, keep func(string) bool, gates bool) pasteRead {
	var out pasteRead
	var b strings.Builder
	seen := map[string]bool{}
	add := func(w string) {
		if w != "" && !seen[w] {
			seen[w] = true
			out.expand = append(out.expand, w)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		in := ^chars(0)
		if gates {
			in = charsOf(line)
		}
		// blankIf keeps a match the index holds whole, unless always: the
		// noise patterns (times, callers, log levels) go whatever the
		// index holds ("[error]" is a level, though cases say error).
		blankIf := func(always bool, re *regexp.Regexp, with func(m []string) string) {
			line = re.ReplaceAllStringFunc(line, func(s string) string {
				if !always && keep != nil && keep(strings.ToLower(strings.Trim(s, "[]()"))) {
					return s
				}
				out.noise++
				r := " "
				if with != nil {
					r = " " + with(re.FindStringSubmatch(s)) + " "
				}
				return r
			})
		}
		blank := func(need chars, re *regexp.Regexp, with func(m []string) string) {
			if in.all(need) {
				blankIf(false, re, with)
			}
		}
		for _, s := range signatures {
			if s.re.MatchString(line) {
				add(s.means)
			}
		}
		for _, n := range noise {
			if n.gate(in) {
				blankIf(true, n.re, nil)
			}
		}
		if in.all(digit) { // hexID wants a digit
			line = hexWord.ReplaceAllStringFunc(line, func(s string) string {
				if hexID(strings.TrimPrefix(strings.ToLower(s), "sha256:")) {
					out.noise++
					return " "
				}
				return s
			})
		}
		portWord := func(m []string) string { return wellKnownPorts[m[len(m)-1]] }
		blank(digit, ipPort, portWord)
		blank(colon, ipv6, nil)
		if in.all(digit | colon) {
			line = port.ReplaceAllStringFunc(line, func(s string) string {
				m := port.FindStringSubmatch(s)
				out.noise++
				return m[1] + " " + wellKnownPorts[m[2]] + " "
			})
		}
		if in.all(digit) { // the suffix that is blanked holds a digit
			line = podName.ReplaceAllStringFunc(line, func(s string) string {
				m := podName.FindStringSubmatch(s)
				if !strings.ContainsAny(m[2], "0123456789") || (keep != nil && keep(s)) {
					return s
				}
				out.noise++
				return m[1]
			})
		}
		blank(dot, hostName, nil)
		blank(digit, bigNumber, nil)
		blank(slash, slashPair, nil)
		if in.any(equals | quote) {
			line = logKey.ReplaceAllString(line, " ")
		}
		if strings.TrimSpace(line) != "" {
			out.lines++
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	out.text = strings.TrimSpace(b.String())
	return out
}

// holdsWhole reports whether some case holds t as one term of the index.
func (ix *Index) holdsWhole(t string) bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	for f := 0; f < nFields; f++ {
		if ix.post[f][t] != nil {
			return true
		}
	}
	return false
}
