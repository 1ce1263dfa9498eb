package kubegap

import (
	"strings"
	"testing"
)

// TestTemplateFieldLine holds the template walker to the line a reader
// would point at, and to stopping at the nearest sure line wherever the
// template may write the path some other way. Each template marks the
// expected line with "# <-".
func TestTemplateFieldLine(t *testing.T) {
	const head = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ include \"x.fullname\" . }}\n"
	for _, tc := range []struct {
		name, src, kind, path string
		none                  bool // no line: no single document of the kind
	}{
		{name: "a key with an action for its value", kind: "Deployment", path: "spec.replicas",
			src: head + "spec:\n  replicas: {{ .Values.replicas }} # <-\n  selector: {}\n"},
		{name: "a container, items indented under their key", kind: "Deployment", path: "spec.template.spec.containers[1]",
			src: head + "spec:\n  template:\n    spec:\n      containers:\n        - name: a\n          image: a\n        - name: b # <-\n          image: b\n"},
		{name: "items at their key's column", kind: "Deployment", path: "spec.template.spec.containers[1].livenessProbe",
			src: head + "spec:\n  template:\n    spec:\n      containers:\n      - name: a\n      - name: b\n        livenessProbe: # <-\n          httpGet: {path: /, port: 80}\n      volumes: []\n"},
		{name: "a field under a with block", kind: "Deployment", path: "spec.template.spec.containers[0].resources.limits",
			src: head + "spec:\n  template:\n    spec:\n      containers:\n        - name: web\n          {{- with .Values.memoryLimit }}\n          resources:\n            limits: # <-\n              memory: {{ . }}\n          {{- end }}\n"},
		{name: "an injection: the key that holds it", kind: "Deployment", path: "spec.template.spec.containers[0].resources.limits",
			src: head + "spec:\n  template:\n    spec:\n      containers:\n        - name: web\n          resources: # <-\n            {{- toYaml .Values.resources | nindent 12 }}\n"},
		{name: "an injection on the key's line", kind: "Deployment", path: "spec.template.spec.containers[0].resources.limits.memory",
			src: head + "spec:\n  template:\n    spec:\n      containers:\n        - name: web\n          resources: {{- toYaml .Values.resources | nindent 12 }} # <-\n"},
		{name: "a key written in two branches: the mapping above", kind: "Deployment", path: "spec.strategy.type",
			src: head + "spec: # <-\n  {{- if .Values.recreate }}\n  strategy:\n    type: Recreate\n  {{- else }}\n  strategy:\n    type: RollingUpdate\n  {{- end }}\n"},
		{name: "items from a range: the sequence's key", kind: "Deployment", path: "spec.template.spec.containers[0]",
			src: head + "spec:\n  template:\n    spec:\n      containers: # <-\n        {{- range .Values.containers }}\n        - name: {{ .name }}\n        {{- end }}\n"},
		{name: "an item under a condition: the sequence's key", kind: "Deployment", path: "spec.template.spec.containers[1]",
			src: head + "spec:\n  template:\n    spec:\n      containers: # <-\n        {{- if .Values.sidecar }}\n        - name: sidecar\n        {{- end }}\n        - name: app\n        - name: other\n"},
		{name: "items injected before a written one: the sequence's key", kind: "Deployment", path: "spec.template.spec.containers[0]",
			src: head + "spec:\n  template:\n    spec:\n      containers: # <-\n        {{- toYaml .Values.extraContainers | nindent 8 }}\n        - name: app\n"},
		{name: "a comment and a variable write nothing", kind: "Deployment", path: "spec.template.spec.containers[0]",
			src: head + "spec:\n  template:\n    spec:\n      containers:\n        {{- /* the app */ -}}\n        {{- $port := 80 }}\n        - name: app # <-\n"},
		{name: "a field the template leaves out: its container", kind: "Deployment", path: "spec.template.spec.containers[0].readinessProbe",
			src: head + "spec:\n  template:\n    spec:\n      containers:\n        - name: web # <-\n          image: web\n"},
		{name: "the document of the object's kind", kind: "Service", path: "spec.ports[0]",
			src: head + "spec:\n  replicas: 1\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  ports:\n    - port: 80 # <-\n"},
		{name: "two documents of the kind", kind: "Deployment", path: "spec.replicas", none: true,
			src: head + "spec:\n  replicas: 1\n---\n" + head + "spec:\n  replicas: 2\n"},
		{name: "a templated kind", kind: "Deployment", path: "spec.replicas", none: true,
			src: "apiVersion: apps/v1\nkind: {{ .Values.kind }}\nspec:\n  replicas: 1\n"},
		{name: "a kind written in two branches: the first", kind: "StatefulSet", path: "spec.replicas",
			src: "apiVersion: apps/v1\n{{- if .Values.stateful }}\nkind: StatefulSet\n{{- else }}\nkind: Deployment\n{{- end }}\nspec:\n  replicas: 1 # <-\n"},
		{name: "a kind written in two branches: the second", kind: "Deployment", path: "spec.replicas",
			src: "apiVersion: apps/v1\n{{- if .Values.stateful }}\nkind: StatefulSet\n{{- else }}\nkind: Deployment\n{{- end }}\nspec:\n  replicas: 1 # <-\n"},
		{name: "a kind written in neither branch", kind: "DaemonSet", path: "spec.replicas", none: true,
			src: "apiVersion: apps/v1\n{{- if .Values.stateful }}\nkind: StatefulSet\n{{- else }}\nkind: Deployment\n{{- end }}\nspec:\n  replicas: 1\n"},
		{name: "an item before the conditional ones", kind: "Deployment", path: "spec.template.spec.containers[0].livenessProbe",
			src: head + "spec:\n  template:\n    spec:\n      containers:\n        {{- $port := 80 }}\n        - name: app\n          livenessProbe: # <-\n            tcpSocket: {port: 80}\n        {{- if .Values.proxy }}\n        - name: proxy\n        {{- end }}\n"},
		{name: "an item after the conditional ones", kind: "Deployment", path: "spec.template.spec.containers[1]",
			src: head + "spec:\n  template:\n    spec:\n      containers: # <-\n        - name: app\n        {{- if .Values.proxy }}\n        - name: proxy\n        {{- end }}\n        - name: last\n"},
		{name: "text around an action at a line's start: the sequence's key", kind: "Deployment", path: "spec.template.spec.containers[0]",
			src: head + "spec:\n  template:\n    spec:\n      containers: # <-\n        {{ .Values.extra }}- name: extra\n        - name: app\n"},
		{name: "a templated key beside a sure one", kind: "Deployment", path: "metadata.labels.app",
			src: head + "  labels:\n    {{ .Values.labelKey }}: x\n    app: web # <-\n"},
		{name: "labels from an include: the labels key", kind: "Deployment", path: "spec.template.metadata.labels.app",
			src: head + "spec:\n  template:\n    metadata:\n      labels: # <-\n        {{- include \"x.labels\" . | nindent 8 }}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := 0
			for i, l := range strings.Split(tc.src, "\n") {
				if strings.HasSuffix(l, "# <-") {
					want = i + 1
				}
			}
			if tc.none {
				want = 0
			} else if want == 0 {
				t.Fatal("the template marks no line")
			}
			src := strings.ReplaceAll(tc.src, " # <-", "")
			if _, got := templateFieldLine([]byte(src), tc.kind, tc.path, nil); got != want {
				t.Errorf("%s: line %d, want %d in\n%s", tc.path, got, want, numbered(src))
			}
		})
	}
}

func numbered(s string) string {
	var b strings.Builder
	for i, l := range strings.Split(s, "\n") {
		b.WriteString(strings.Repeat(" ", 3-len(itoa(i+1))) + itoa(i+1) + "  " + l + "\n")
	}
	return b.String()
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

// TestTemplateFieldLineIncludes: where the path goes on into what one
// include writes, the walk follows the define into its file, and stops
// where it cannot (no such define, a name defined twice).
func TestTemplateFieldLineIncludes(t *testing.T) {
	const head = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\n"
	helpers := "{{/* helpers */}}\n" +
		"{{- define \"x.podSpec\" -}}\n" + // 2
		"serviceAccountName: x\n" + // 3
		"containers:\n" + // 4
		"  - name: app\n" + // 5
		"    image: app\n" + // 6
		"    {{- if .Values.probe }}\n" + // 7
		"    livenessProbe:\n" + // 8
		"      tcpSocket: {port: 80}\n" + // 9
		"    {{- end }}\n" + // 10
		"{{- end }}\n" + // 11
		"{{- define \"x.limits\" }}\n" + // 12
		"limits:\n" + // 13
		"  memory: 1Gi\n" + // 14
		"{{- end }}\n" + // 15
		"{{- define \"x.containers\" }}\n" + // 16
		"- name: first\n" + // 17
		"- name: second\n" + // 18
		"{{- end }}\n" + // 19
		"{{- define \"x.twice\" }}\nselector: {}\n{{- end }}\n" + // 20-22
		"{{- define \"x.more\" }}\n" + // 23
		"selector: {}\n" + // 24
		"{{- end }}\n" // 25
	other := "{{- define \"x.twice\" }}\nselector: {}\n{{- end }}\n"
	shapes := defineShapes(map[string][]byte{"_helpers.tpl": []byte(helpers), "other.tpl": []byte(other)})
	defs := func(name string) (*tplNode, string) {
		s, ok := shapes[name]
		if !ok {
			return nil, ""
		}
		return s.root, s.file
	}
	for _, tc := range []struct {
		name, src, path, file string
		line                  int
	}{
		{"a field in the included pod spec", head + "spec:\n  template:\n    spec:\n      {{- include \"x.podSpec\" . | nindent 6 }}\n",
			"spec.template.spec.containers[0].livenessProbe", "_helpers.tpl", 8},
		{"a field the define leaves out: its container there", head + "spec:\n  template:\n    spec:\n      {{- include \"x.podSpec\" . | nindent 6 }}\n",
			"spec.template.spec.containers[0].readinessProbe", "_helpers.tpl", 5},
		{"an include on the key's line", head + "spec:\n  template:\n    spec:\n      containers:\n        - name: app\n          resources: {{- include \"x.limits\" . | nindent 12 }}\n",
			"spec.template.spec.containers[0].resources.limits.memory", "_helpers.tpl", 14},
		{"items from an include", head + "spec:\n  template:\n    spec:\n      containers:\n        {{- include \"x.containers\" . | nindent 8 }}\n",
			"spec.template.spec.containers[1]", "_helpers.tpl", 18},
		{"beside written keys", head + "spec:\n  replicas: 1\n  {{- include \"x.more\" . | nindent 2 }}\n",
			"spec.selector", "_helpers.tpl", 24},
		{"no such define: the key that holds the include", head + "spec:\n  template:\n    spec:\n      {{- include \"x.nothing\" . | nindent 6 }}\n",
			"spec.template.spec.containers[0]", "", 7},
		{"two includes: neither followed", head + "spec:\n  {{- include \"x.more\" . | nindent 2 }}\n  {{- include \"x.limits\" . | nindent 2 }}\n",
			"spec.selector", "", 5},
		{"a name defined twice: not followed", head + "spec:\n  {{- include \"x.twice\" . | nindent 2 }}\n",
			"spec.selector", "", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file, line := templateFieldLine([]byte(tc.src), "Deployment", tc.path, defs)
			if file != tc.file || line != tc.line {
				t.Errorf("%s: %q line %d, want %q line %d in\n%s", tc.path, file, line, tc.file, tc.line, numbered(tc.src))
			}
		})
	}
}
