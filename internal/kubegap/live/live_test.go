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
	"github.com/incidentlib/incidentlib/internal/kubegap/fixture"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
	"github.com/incidentlib/incidentlib/internal/kubegap/kubetest"
	"github.com/incidentlib/incidentlib/internal/kubegap/live"
	"github.com/incidentlib/incidentlib/internal/kubegap/manifest"
	"github.com/incidentlib/incidentlib/internal/kubegap/report"
)

// The fixtures loaded into the real API server: the fail.yaml of checks whose objects
// do not collide, the CRDs they need, and 600 headless Services so that one
// kind takes two pages. Webhook configurations come last: once they exist,
// writes they intercept fail (their backends do not exist).
var liveFixtureNames = []string{
	"testdata/crds.yaml",
	"fixture:node-agent-unbounded-list",
	"fixture:dns-memory-limit",
	"fixture:service-selector-extra-label",
	"fixture:no-prestop-behind-lb",
	"fixture:external-dns-weight-missing",
	"fixture:node-disk-full-of-images",
	"fixture:node-disk-smaller-than-peers",
	"fixture:cpu-limit-cfs-bug-kernel",
	"fixture:master-node-label-selector",
	"fixture:dex-kubernetes-storage",
	"fixture:calico-ipam-gc",
	"fixture:prometheus-startup-window",
	"fixture:job-retries-unbounded-memory",
	"fixture:argocd-automated-prune",
	"fixture:node-nothing-reserved",
	"BULK",
	"fixture:webhook-covers-kube-system",
	"fixture:webhook-all-resources-fail-closed",
}

// liveFixtures returns liveFixtureNames with each "fixture:ID" written out
// as the path of that check's fail.yaml.
func liveFixtures(t testing.TB) []string {
	t.Helper()
	out := make([]string, len(liveFixtureNames))
	for i, f := range liveFixtureNames {
		if id, ok := strings.CutPrefix(f, "fixture:"); ok {
			f = fixture.Path(t, "../checks/testdata", id, "fail.yaml")
		}
		out[i] = f
	}
	return out
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
	// dryRun asks the API server to validate each object and store none
	// (namespaces are still made).
	dryRun bool
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
	opts := metav1.CreateOptions{}
	if l.dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	created, err := ri.Create(ctx, u, opts)
	if l.dryRun {
		return err
	}
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

// newLoader writes objects into c as its administrator.
func newLoader(t *testing.T, c *kubetest.Cluster) *loader {
	cfg := restConfig(c, kubetest.AdminToken)
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &loader{t: t, dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)), nss: map[string]bool{"default": true, "kube-system": true}}
}

func loadCluster(t *testing.T, c *kubetest.Cluster) {
	l := newLoader(t, c)
	// The limited identity: get/list on four kinds, nothing else; it may
	// list Deployments but not StatefulSets.
	l.load("limited-rbac", `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: kubegap-limited}
rules:
- apiGroups: [apps]
  resources: [deployments, daemonsets]
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
	for _, f := range liveFixtures(t) {
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
	for _, f := range liveFixtures(t) {
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
// evaluated" for the checks it cannot feed and "partial" for those that
// can do without what it may not list.
func TestLive(t *testing.T) {
	c := kubetest.Start(t)
	// Before the fixtures: their fail-closed webhooks refuse every write.
	t.Run("workload-spec-invalid agrees with the API server", func(t *testing.T) { specAgreesWithServer(t, c) })
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

	// A limited identity: get/list on four kinds only.
	lim, err := cli.LiveScan(ctx, live.Options{Kubeconfig: c.Kubeconfig, Context: "limited"}, time.Minute, cs, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	checkLimited(t, cs, lim)

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

// limitedKinds are what the limited identity may list.
var limitedKinds = map[inventory.Kind]bool{inventory.Deployment: true, inventory.DaemonSet: true, inventory.Service: true, inventory.HPA: true}

// offlineLimited scans the fixtures' objects of limitedKinds offline, with
// every other kind marked unread: what a live scan that may list only
// those kinds must report.
func offlineLimited(t *testing.T, cs []*checks.Check) *kubegap.Result {
	t.Helper()
	var b bytes.Buffer
	keep := func(file, data string) {
		err := manifest.Read(file, strings.NewReader(data), nil, func(d manifest.Doc) error {
			if k := inventory.Kind(d.Kind); limitedKinds[k] {
				b.Write(d.JSON)
				b.WriteByte('\n')
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	for _, f := range liveFixtures(t) {
		if f == "BULK" {
			keep("bulk", bulkYAML())
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		keep(f, string(data))
	}
	file := filepath.Join(t.TempDir(), "limited.json")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	inv, _, err := kubegap.ReadFiles([]string{file}, nil, cs)
	if err != nil {
		t.Fatal(err)
	}
	for k := range inv.Read {
		if !limitedKinds[k] {
			delete(inv.Read, k)
		}
	}
	return kubegap.Evaluate(inv, cs, nil, false)
}

// checkLimited: the limited identity (Deployments, DaemonSets, Services
// and HPAs) leaves unevaluated the checks that need another kind, runs
// partially those that can do without the kinds it may not list, finds
// what the offline scan of the same objects finds, and says all of it in
// the JSON report.
func checkLimited(t *testing.T, cs []*checks.Check, lim *kubegap.Result) {
	t.Helper()
	want := offlineLimited(t, cs)
	str := func(ne []kubegap.NotEvaluated, p []kubegap.Partial) string {
		var out []string
		for _, n := range ne {
			out = append(out, "not evaluated "+n.Check+": "+strings.Join(n.Missing, ","))
		}
		for _, n := range p {
			out = append(out, "partial "+n.Check+": "+strings.Join(n.Missing, ","))
		}
		return strings.Join(out, "\n")
	}
	if a, b := str(lim.NotEvaluated, lim.Partial), str(want.NotEvaluated, want.Partial); a != b {
		t.Errorf("limited identity:\n%s\nwant (offline, the same kinds unread):\n%s", a, b)
	}
	if len(lim.Partial) == 0 || lim.Evaluated() == len(lim.Partial) {
		t.Fatalf("%d partial of %d evaluated: the test proves nothing", len(lim.Partial), lim.Evaluated())
	}
	t.Logf("limited identity: %d of %d checks evaluated, %d of them partially, %d findings\n%s", lim.Evaluated(), lim.Checks, len(lim.Partial), len(lim.Findings), str(nil, lim.Partial))
	for _, n := range lim.NotEvaluated {
		if !strings.Contains(n.Reason, "not allowed to list") {
			t.Errorf("%s: reason %q does not say it was not allowed", n.Check, n.Reason)
		}
	}
	if a, b := strings.Join(keys(lim.Findings), "\n"), strings.Join(keys(want.Findings), "\n"); a != b {
		t.Errorf("limited findings differ from the offline scan of the same kinds\nlimited:\n%s\noffline:\n%s", a, b)
	}

	// The JSON report carries the partial checks, their unseen kinds and
	// why, and counts them among the evaluated.
	var buf bytes.Buffer
	if err := report.Write(&buf, lim, "json", "en", "test"); err != nil {
		t.Fatal(err)
	}
	var r struct {
		Checks struct {
			Selected, Evaluated, Partial int
			NotEvaluated                 int `json:"not_evaluated"`
		}
		Partial []struct {
			Check   string
			Missing []string
			Reason  string
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if r.Checks.Evaluated+r.Checks.NotEvaluated != r.Checks.Selected || r.Checks.Partial != len(lim.Partial) || r.Checks.Evaluated != lim.Evaluated() || len(r.Partial) != len(lim.Partial) {
		t.Errorf("report checks %+v for %d partial, %d evaluated", r.Checks, len(lim.Partial), lim.Evaluated())
	}
	found := false
	for _, p := range r.Partial {
		if p.Check == "replicas-not-spread" {
			found = true
			if strings.Join(p.Missing, ",") != "StatefulSet" ||
				!strings.Contains(p.Reason, "evaluated without StatefulSet") || !strings.Contains(p.Reason, "not allowed to list statefulsets") {
				t.Errorf("JSON partial entry %+v", p)
			}
		}
	}
	if !found {
		t.Errorf("no partial entry for replicas-not-spread in the JSON report:\n%s", buf.String())
	}
}

// specAgreesWithServer holds workload-spec-invalid to the API server's own
// validation: every object of the check's fixtures that the check reports is
// refused by a server-side dry run as invalid, and every other one is
// accepted, except those with fields kubegap reads as unknown (unrendered
// placeholders, which the server refuses for their own sake).
func specAgreesWithServer(t *testing.T, c *kubetest.Cluster) {
	l := newLoader(t, c)
	l.dryRun = true
	check := checks.Get("workload-spec-invalid")
	if check == nil {
		t.Fatal("no check workload-spec-invalid")
	}
	tried := 0
	for _, name := range []string{"fail.yaml", "fail-2.yaml", "pass.yaml", "pass-2.yaml"} {
		path := fixture.Path(t, "../checks/testdata", "workload-spec-invalid", name)
		inv, _, err := kubegap.ReadFiles([]string{path}, nil, []*checks.Check{check})
		if err != nil {
			t.Fatal(err)
		}
		flagged := map[inventory.Ref]string{}
		for _, f := range kubegap.Evaluate(inv, []*checks.Check{check}, nil, false).Findings {
			flagged[f.Object] = f.Message.EN
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		err = manifest.Read(path, bytes.NewReader(b), nil, func(d manifest.Doc) error {
			u := &unstructured.Unstructured{}
			if err := u.UnmarshalJSON(d.JSON); err != nil {
				return err
			}
			r := inventory.Ref{Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()}
			if len(inv.Unknown[r]) > 0 {
				return nil
			}
			tried++
			cerr := l.create(u)
			msg, reported := flagged[r]
			switch {
			case reported && !apierrors.IsInvalid(cerr):
				t.Errorf("%s %s: the check reports %q, and the API server answered %v", name, r, msg, cerr)
			case !reported && cerr != nil:
				t.Errorf("%s %s: the check passes it, and the API server refused it: %v", name, r, cerr)
			case reported:
				t.Logf("%s %s: refused as the check says (%s): %v", name, r, msg, cerr)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if tried < 6 {
		t.Errorf("only %d objects were tried against the API server", tried)
	}
}
