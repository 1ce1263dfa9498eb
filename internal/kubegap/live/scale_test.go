package live_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/cli"
	"github.com/incidentlib/incidentlib/internal/kubegap/kubetest"
	"github.com/incidentlib/incidentlib/internal/kubegap/live"
	"github.com/incidentlib/incidentlib/internal/kubegap/synth"
)

var gvr = map[string]schema.GroupVersionResource{
	"Node":                {Version: "v1", Resource: "nodes"},
	"Pod":                 {Version: "v1", Resource: "pods"},
	"Service":             {Version: "v1", Resource: "services"},
	"Deployment":          {Group: "apps", Version: "v1", Resource: "deployments"},
	"DaemonSet":           {Group: "apps", Version: "v1", Resource: "daemonsets"},
	"PodDisruptionBudget": {Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"},
}

// TestLiveScale loads the synthetic large cluster (5,000 nodes and its
// workloads; pods as many as KUBEGAP_SCALE_PODS, default 2,000, since kubegap
// only counts them) into a real API server and records how many requests a
// live scan makes. It runs only with KUBEGAP_LIVE_SCALE=1 (it takes
// minutes); docs/PERFORMANCE.md (kubegap) quotes it.
func TestLiveScale(t *testing.T) {
	if os.Getenv("KUBEGAP_LIVE_SCALE") != "1" {
		t.Skip("set KUBEGAP_LIVE_SCALE=1 to load a 5,000-node cluster into a real API server")
	}
	c := kubetest.Start(t)
	dyn, err := dynamic.NewForConfig(restConfig(c, kubetest.AdminToken))
	if err != nil {
		t.Fatal(err)
	}
	size := synth.Large
	maxPods := 2000 // kubegap only counts pods: one request whatever their number
	if n, err := strconv.Atoi(os.Getenv("KUBEGAP_SCALE_PODS")); err == nil {
		maxPods = n
	}
	ctx := context.Background()
	start := time.Now()
	type job struct{ o map[string]any }
	jobs := make(chan job, 256)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	counts := map[string]int{}
	nss := &namespaces{m: map[string]*nsOnce{}}
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if err := createSynth(ctx, dyn, j.o, nss); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	pods := 0
	err = synth.Objects(size, func(o map[string]any) error {
		k := o["kind"].(string)
		if k == "Pod" {
			if pods >= maxPods {
				return nil
			}
			pods++
		}
		counts[k]++
		jobs <- job{o}
		return nil
	})
	close(jobs)
	wg.Wait()
	if err != nil || firstErr != nil {
		t.Fatal(err, firstErr)
	}
	t.Logf("loaded %v in %s", counts, time.Since(start).Round(time.Second))

	cs := checks.All()
	t0 := time.Now()
	res, err := cli.LiveScan(ctx, live.Options{Kubeconfig: c.Kubeconfig, Context: "scanner"}, 10*time.Minute, cs, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	events := auditFor(t, c.AuditLog, "scanner")
	pages := map[string]int{}
	for _, e := range events {
		if e.Verb == "list" {
			pages[e.ObjectRef.Resource]++
		}
	}
	t.Logf("live scan of %d nodes: %d API requests in %s (%d findings); list pages by resource: %v",
		counts["Node"], res.APIRequests, time.Since(t0).Round(time.Millisecond), len(res.Findings), pages)
	if res.APIRequests != len(events) {
		t.Errorf("report says %d requests, audit log %d", res.APIRequests, len(events))
	}
	if pages["nodes"] != (counts["Node"]+499)/500 {
		t.Errorf("nodes took %d pages for %d nodes", pages["nodes"], counts["Node"])
	}
	if pages["pods"] != 1 {
		t.Errorf("pods are only counted: want 1 request, got %d", pages["pods"])
	}
	b, _ := json.Marshal(map[string]any{"nodes": counts["Node"], "requests": res.APIRequests, "pages": pages})
	t.Logf("summary %s", b)
}

type nsOnce struct {
	once sync.Once
	err  error
}

type namespaces struct {
	mu sync.Mutex
	m  map[string]*nsOnce
}

// ensure creates namespace ns once; every caller waits for it.
func (n *namespaces) ensure(ctx context.Context, dyn dynamic.Interface, ns string) error {
	n.mu.Lock()
	o := n.m[ns]
	if o == nil {
		o = &nsOnce{}
		n.m[ns] = o
	}
	n.mu.Unlock()
	o.once.Do(func() {
		nsObj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}
		if _, err := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Create(ctx, nsObj, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			o.err = err
		}
	})
	return o.err
}

func createSynth(ctx context.Context, dyn dynamic.Interface, o map[string]any, nss *namespaces) error {
	k := o["kind"].(string)
	r, ok := gvr[k]
	if !ok {
		return fmt.Errorf("no resource for %s", k)
	}
	u := &unstructured.Unstructured{Object: o}
	status, hasStatus := o["status"]
	if k == "Service" { // the test API server has a small service range
		spec := o["spec"].(map[string]any)
		spec["clusterIP"] = "None"
	}
	var ri dynamic.ResourceInterface = dyn.Resource(r)
	if ns := u.GetNamespace(); ns != "" {
		if err := nss.ensure(ctx, dyn, ns); err != nil {
			return err
		}
		ri = dyn.Resource(r).Namespace(ns)
	}
	u.SetResourceVersion("")
	u.SetUID("")
	created, err := ri.Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create %s %s: %w", k, u.GetName(), err)
	}
	if k == "Node" && hasStatus {
		created.Object["status"] = status
		if _, err := ri.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	return nil
}
