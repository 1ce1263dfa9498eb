package live_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/cli"
	"github.com/incidentlib/incidentlib/internal/kubegap/kubetest"
	"github.com/incidentlib/incidentlib/internal/kubegap/live"
	"github.com/incidentlib/incidentlib/internal/kubegap/manifest"
	"github.com/incidentlib/incidentlib/internal/kubegap/report"
)

// The fixtures loaded into the real API server: fail fixtures whose objects
// do not collide, the CRDs they need, and 600 headless Services so that one
// kind takes two pages. Webhook configurations come last: once they exist,
// writes they intercept fail (their backends do not exist).
var liveFixtures = []string{
	"testdata/crds.yaml",
	"../checks/testdata/node-agent-unbounded-list/fail.yaml",
	"../checks/testdata/dns-memory-limit/fail.yaml",
	"../checks/testdata/service-selector-extra-label/fail.yaml",
	"../checks/testdata/no-prestop-behind-lb/fail.yaml",
	"../checks/testdata/external-dns-weight-missing/fail.yaml",
	"../checks/testdata/node-disk-full-of-images/fail.yaml",
	"../checks/testdata/node-disk-smaller-than-peers/fail.yaml",
	"../checks/testdata/cpu-limit-cfs-bug-kernel/fail.yaml",
	"../checks/testdata/master-node-label-selector/fail.yaml",
	"../checks/testdata/dex-kubernetes-storage/fail.yaml",
	"../checks/testdata/calico-ipam-gc/fail.yaml",
	"../checks/testdata/prometheus-startup-window/fail.yaml",
	"../checks/testdata/job-retries-unbounded-memory/fail.yaml",
	"BULK",
	"../checks/testdata/webhook-covers-kube-system/fail.yaml",
	"../checks/testdata/webhook-all-resources-fail-closed/fail.yaml",
}

const bulkServices = 600

func bulkYAML() string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Namespace\nmetadata: {name: bulk}\n")
	for i := 0; i < bulkServices; i++ {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Service\nmetadata: {name: svc-%04d, namespace: bulk}\nspec:\n  clusterIP: None\n  ports: [{port: 80}]\n", i)
	}
	return b.String()
}

func restConfig(c *kubetest.Cluster, token string) *rest.Config {
	return &rest.Config{Host: c.Host, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{Insecure: true}, QPS: 500, Burst: 1000}
}

type loader struct {
	t      *testing.T
	dyn    dynamic.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
	nss    map[string]bool
}

func (l *loader) load(file string, data string) {
	l.t.Helper()
	err := manifest.Read(file, strings.NewReader(data), nil, func(d manifest.Doc) error {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(d.JSON); err != nil {
			return err
		}
		return l.create(u)
	})
	if err != nil {
		l.t.Fatalf("load %s: %v", file, err)
	}
}

func (l *loader) create(u *unstructured.Unstructured) error {
	ctx := context.Background()
	gvk := u.GroupVersionKind()
	var m *meta.RESTMapping
	var err error
	for i := 0; i < 50; i++ { // a CRD's kind appears in discovery shortly after it is created
		m, err = l.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err == nil {
			break
		}
		l.mapper.Reset()
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", gvk, err)
	}
	var ri dynamic.ResourceInterface = l.dyn.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		ns := u.GetNamespace()
		if ns == "" {
			ns = "default"
			u.SetNamespace(ns)
		}
		if !l.nss[ns] {
			l.nss[ns] = true
			nsObj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}
			if _, err := l.dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Create(ctx, nsObj, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				return err
			}
		}
		ri = l.dyn.Resource(m.Resource).Namespace(ns)
	}
	status, hasStatus := u.Object["status"]
	created, err := ri.Create(ctx, u, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) { // kube-system: take the fixture's labels
		cur, gerr := ri.Get(ctx, u.GetName(), metav1.GetOptions{})
		if gerr != nil {
			return gerr
		}
		cur.SetLabels(u.GetLabels())
		created, err = ri.Update(ctx, cur, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("create %s %s: %w", gvk.Kind, u.GetName(), err)
	}
	if gvk.Kind == "CustomResourceDefinition" {
		l.mapper.Reset()
	}
	if hasStatus && gvk.Kind == "Node" {
		created.Object["status"] = status
		if _, err := ri.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("status of %s: %w", u.GetName(), err)
		}
	}
	return nil
}

func loadCluster(t *testing.T, c *kubetest.Cluster) {
	cfg := restConfig(c, kubetest.AdminToken)
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l := &loader{t: t, dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)), nss: map[string]bool{"default": true, "kube-system": true}}
	// The limited identity: get/list on five kinds, nothing else.
	l.load("limited-rbac", `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: kubegap-limited}
rules:
- apiGroups: [apps]
  resources: [deployments, daemonsets, statefulsets]
  verbs: [get, list]
- apiGroups: [""]
  resources: [services]
  verbs: [get, list]
- apiGroups: [autoscaling]
  resources: [horizontalpodautoscalers]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: kubegap-limited}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kubegap-limited}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: limited}
`)
	// The reader identity gets exactly what `kubegap rbac` prints.
	var rbac bytes.Buffer
	if err := report.WriteRBAC(&rbac, checks.All(), "kubegap-reader"); err != nil {
		t.Fatal(err)
	}
	l.load("kubegap rbac", rbac.String()+`---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: kubegap-reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kubegap-reader}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: reader}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: kubegap-reader, namespace: kube-system}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: kubegap-reader}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: reader}
`)
	for _, f := range liveFixtures {
		if f == "BULK" {
			l.load("bulk", bulkYAML())
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		l.load(f, string(b))
	}
}

// offline scans the same objects from files.
func offline(t *testing.T, cs []*checks.Check) *kubegap.Result {
	t.Helper()
	dir := t.TempDir()
	bulk := filepath.Join(dir, "bulk.yaml")
	if err := os.WriteFile(bulk, []byte(bulkYAML()), 0o644); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range liveFixtures {
		if f == "BULK" {
			f = bulk
		}
		paths = append(paths, f)
	}
	inv, _, err := kubegap.ReadFiles(paths, nil, cs)
	if err != nil {
		t.Fatal(err)
	}
	return kubegap.Evaluate(inv, cs, nil, false)
}

func key(f checks.Finding) string {
	return fmt.Sprintf("%s %s %s | %s", f.Check, f.Severity, f.Object, f.Message.EN)
}

func keys(fs []checks.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, key(f))
	}
	sort.Strings(out)
	return out
}

type auditEvent struct {
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	Stage      string `json:"stage"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource string `json:"resource"`
		APIGroup string `json:"apiGroup"`
	} `json:"objectRef"`
}

func auditFor(t *testing.T, path, user string) []auditEvent {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []auditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e auditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit line: %v", err)
		}
		if e.User.Username == user && e.Stage == "ResponseComplete" {
			out = append(out, e)
		}
	}
	return out
}

// TestLive loads fixtures into a real kube-apiserver and checks that the
// live scan finds what the offline scan of the same objects finds, that the
// report's request count matches the API server's audit log, that every
// request was a paged, read-only one, and that a limited identity gets "not
// evaluated" for the checks it cannot feed.
func TestLive(t *testing.T) {
	c := kubetest.Start(t)
	loadCluster(t, c)
	cs := checks.All()
	ctx := context.Background()

	res, err := cli.LiveScan(ctx, live.Options{Kubeconfig: c.Kubeconfig, Context: "scanner"}, time.Minute, cs, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	off := offline(t, cs)
	if len(res.NotEvaluated) != 0 {
		t.Errorf("admin scan left checks not evaluated: %+v", res.NotEvaluated)
	}
	lk, ok := keys(res.Findings), keys(off.Findings)
	if strings.Join(lk, "\n") != strings.Join(ok, "\n") {
		t.Errorf("live and offline findings differ\nlive:\n  %s\noffline:\n  %s", strings.Join(lk, "\n  "), strings.Join(ok, "\n  "))
	}
	if len(lk) < 15 {
		t.Errorf("only %d findings from the fixtures", len(lk))
	}

	// The request count against the API server's own audit log.
	events := auditFor(t, c.AuditLog, "scanner")
	if res.APIRequests != len(events) {
		t.Errorf("report says %d API requests, the audit log has %d", res.APIRequests, len(events))
	}
	lists := map[string]int{}
	pages := map[string]int{}
	ssar := 0
	for _, e := range events {
		switch {
		case e.Verb == "create" && e.ObjectRef != nil && e.ObjectRef.Resource == "selfsubjectaccessreviews":
			ssar++
		case e.Verb == "list":
			u, err := url.Parse(e.RequestURI)
			if err != nil {
				t.Fatal(err)
			}
			q := u.Query()
			if l := q.Get("limit"); l != "500" && l != "1" {
				t.Errorf("list without limit=500: %s", e.RequestURI)
			}
			r := e.ObjectRef.APIGroup + "/" + e.ObjectRef.Resource
			if q.Get("continue") == "" {
				lists[r]++
			}
			pages[r]++
		case e.Verb == "get" && e.ObjectRef == nil:
			// discovery (/api, /apis)
		default:
			t.Errorf("unexpected request %s %s", e.Verb, e.RequestURI)
		}
		if e.ObjectRef != nil && e.ObjectRef.Resource == "secrets" {
			t.Errorf("kubegap touched secrets: %s", e.RequestURI)
		}
	}
	for r, n := range lists {
		if n != 1 {
			t.Errorf("%s listed %d times", r, n)
		}
	}
	if pages["/services"] != 2 {
		t.Errorf("services (%d of them) took %d pages, want 2", bulkServices, pages["/services"])
	}
	if ssar != len(lists) {
		t.Errorf("%d access reviews for %d kinds listed", ssar, len(lists))
	}
	t.Logf("live scan: %d requests (%d access reviews, %d kinds, %d pages)", res.APIRequests, ssar, len(lists), sum(pages))

	// A limited identity: get/list on five kinds only.
	lim, err := cli.LiveScan(ctx, live.Options{Kubeconfig: c.Kubeconfig, Context: "limited"}, time.Minute, cs, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{"Deployment": true, "DaemonSet": true, "StatefulSet": true, "Service": true, "HorizontalPodAutoscaler": true}
	notEval := map[string]string{}
	for _, n := range lim.NotEvaluated {
		notEval[n.Check] = n.Reason
	}
	evaluated := 0
	for _, ch := range cs {
		can := true
		for _, k := range ch.Kinds {
			can = can && allowed[string(k)]
		}
		reason, skipped := notEval[ch.ID]
		switch {
		case can && skipped:
			t.Errorf("%s could be evaluated but was not: %s", ch.ID, reason)
		case !can && !skipped:
			t.Errorf("%s was evaluated without access to all its kinds", ch.ID)
		case !can && !strings.Contains(reason, "not allowed to list"):
			t.Errorf("%s: reason %q does not say it was not allowed", ch.ID, reason)
		case can:
			evaluated++
		}
	}
	if evaluated == 0 {
		t.Fatal("the limited identity evaluated no check; the test proves nothing")
	}
	for _, f := range lim.Findings {
		if _, skipped := notEval[f.Check]; skipped {
			t.Errorf("finding from a check not evaluated: %s", key(f))
		}
	}
	// What it could evaluate, it found as the full scan did.
	var want []checks.Finding
	for _, f := range res.Findings {
		if _, skipped := notEval[f.Check]; !skipped {
			want = append(want, f)
		}
	}
	if a, b := strings.Join(keys(lim.Findings), "\n"), strings.Join(keys(want), "\n"); a != b {
		t.Errorf("limited findings differ from the full scan's\nlimited:\n%s\nfull:\n%s", a, b)
	}

	checkNamespaceScan(t, c, cs)

	// `kubegap rbac` is enough: its roles leave nothing unevaluated.
	rd, err := cli.LiveScan(ctx, live.Options{Kubeconfig: c.Kubeconfig, Context: "reader"}, time.Minute, cs, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(rd.NotEvaluated) != 0 {
		t.Errorf("with kubegap rbac's roles, not evaluated: %+v", rd.NotEvaluated)
	}
	if a, b := strings.Join(keys(rd.Findings), "\n"), strings.Join(lk, "\n"); a != b {
		t.Errorf("reader findings differ from the admin scan's:\n%s", a)
	}
}

// TestLive continues here: -n limits namespaced kinds to one namespace.
func checkNamespaceScan(t *testing.T, c *kubetest.Cluster, cs []*checks.Check) {
	t.Helper()
	res, err := cli.LiveScan(context.Background(), live.Options{Kubeconfig: c.Kubeconfig, Context: "admin", Namespace: "payments"}, time.Minute, cs, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range res.Findings {
		if f.Object.Namespace != "" && f.Object.Namespace != "payments" {
			t.Errorf("-n payments reported %s", key(f))
		}
		if f.Check == "no-prestop-behind-lb" && f.Object.Name == "api" {
			found = true
		}
	}
	if !found {
		t.Errorf("-n payments missed payments/api: %v", keys(res.Findings))
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
