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
			if got := templateFieldLine([]byte(src), tc.kind, tc.path); got != want {
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
