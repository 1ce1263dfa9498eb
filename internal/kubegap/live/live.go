// Package live reads an inventory from a running cluster, gently: it asks
// SelfSubjectAccessReview before listing, lists only the kinds the enabled
// checks need, each once, in pages of 500 with explicit client QPS, burst
// and concurrency, uses metadata-only lists where bodies are not needed,
// and never reads Secrets. It counts every HTTP request it makes.
package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
)

// Options says how to reach the cluster and how gently to read it.
type Options struct {
	Kubeconfig string // --kubeconfig; empty: KUBECONFIG, then ~/.kube/config, then in-cluster
	Context    string // --context
	Namespace  string // -n: namespaced kinds are read there only; empty: all namespaces
	QPS        float32
	Burst      int
	// Concurrency is how many kinds are listed at the same time.
	Concurrency int
	// PageSize is the limit of every LIST (500).
	PageSize int64
	// CountPages caps the pages read to count a kind whose list does not
	// report remainingItemCount.
	CountPages int
	// RequestTimeout bounds each request.
	RequestTimeout time.Duration
	// Progress, when set, receives a one-line progress display (a terminal).
	Progress  io.Writer
	UserAgent string
}

// Defaults fills unset options with kubegap's gentle defaults.
func (o *Options) Defaults() {
	if o.QPS <= 0 {
		o.QPS = 5
	}
	if o.Burst <= 0 {
		o.Burst = 10
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 2
	}
	if o.PageSize <= 0 {
		o.PageSize = 500
	}
	if o.CountPages <= 0 {
		o.CountPages = 20
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 30 * time.Second
	}
	if o.UserAgent == "" {
		o.UserAgent = "kubegap"
	}
}

// Denied is a kind kubegap may not or cannot read, and why.
type Denied struct {
	Kind   inventory.Kind
	Reason string
}

// Stats is what reading cost.
type Stats struct {
	Requests int
	Denied   []Denied
	Host     string
}

// RESTConfig builds the client configuration the way kubectl does.
func RESTConfig(o Options) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if o.Kubeconfig != "" {
		if _, err := os.Stat(o.Kubeconfig); err != nil {
			return nil, fmt.Errorf("kubeconfig %s: %w", o.Kubeconfig, unwrapPath(err))
		}
		rules.ExplicitPath = o.Kubeconfig
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: o.Context})
	cfg, err := cc.ClientConfig()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			return nil, errors.New("no kubeconfig found: set KUBECONFIG or pass --kubeconfig (or scan files with -f)")
		}
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	return cfg, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

type counter struct {
	rt http.RoundTripper
	n  *atomic.Int64
}

func (c counter) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.rt.RoundTrip(r)
}

// Read lists kinds from the cluster into a new inventory.
func Read(ctx context.Context, o Options, kinds []inventory.Kind) (*inventory.Inventory, Stats, error) {
	o.Defaults()
	cfg, err := RESTConfig(o)
	if err != nil {
		return nil, Stats{}, err
	}
	return ReadConfig(ctx, cfg, o, kinds)
}

// ReadConfig is Read with a client configuration already built.
func ReadConfig(ctx context.Context, cfg *rest.Config, o Options, kinds []inventory.Kind) (*inventory.Inventory, Stats, error) {
	o.Defaults()
	var n atomic.Int64
	cfg = countingConfig(cfg, o, &n)
	st := Stats{Host: cfg.Host}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, st, fmt.Errorf("client: %w", err)
	}
	p := &progress{w: o.Progress, n: &n}
	defer p.done()

	p.show("discovering APIs")
	served, err := discover(cs.Discovery())
	st.Requests = int(n.Load())
	if err != nil {
		return nil, st, fmt.Errorf("cannot reach the API server at %s: %s", cfg.Host, describeErr(err))
	}

	r := &reader{ctx: ctx, o: o, cs: cs, p: p, inv: inventory.New(), st: &st}
	r.plan(kinds, served)
	r.checkAccess()
	if err := ctx.Err(); err != nil {
		st.Requests = int(n.Load())
		return nil, st, fmt.Errorf("timed out asking for permissions at %s", cfg.Host)
	}
	r.listAll()
	st.Requests = int(n.Load())
	if r.firstErr != nil {
		return nil, st, r.firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, st, fmt.Errorf("timed out listing from %s", cfg.Host)
	}
	sort.Slice(st.Denied, func(i, j int) bool { return st.Denied[i].Kind < st.Denied[j].Kind })
	return r.inv, st, nil
}

// countingConfig is a copy of cfg with o's limits, timeout and user agent,
// whose transport counts its requests in n.
func countingConfig(cfg *rest.Config, o Options, n *atomic.Int64) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = o.QPS, o.Burst
	cfg.Timeout = o.RequestTimeout
	cfg.UserAgent = o.UserAgent
	prev := cfg.WrapTransport
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		if prev != nil {
			rt = prev(rt)
		}
		return counter{rt: rt, n: n}
	}
	return cfg
}

// reader is one run of ReadConfig after discovery: the kinds to list, at
// which version, whether each may be listed, and what was read. mu guards
// inv, st.Denied and firstErr, which the concurrent requests fill.
type reader struct {
	ctx      context.Context
	o        Options
	cs       *kubernetes.Clientset
	p        *progress
	mu       sync.Mutex
	inv      *inventory.Inventory
	st       *Stats
	jobs     []readJob
	allowed  []bool // by job: the user may list its kind
	firstErr error
}

// readJob is a kind to list and the version to list it at.
type readJob struct {
	k       inventory.Kind
	version string
}

// deny records that kind k cannot be read, and why.
func (r *reader) deny(k inventory.Kind, why string) {
	r.mu.Lock()
	r.st.Denied = append(r.st.Denied, Denied{Kind: k, Reason: why})
	r.mu.Unlock()
}

// markRead records that kind k was read in full.
func (r *reader) markRead(k inventory.Kind) {
	r.mu.Lock()
	r.inv.MarkRead(k)
	r.mu.Unlock()
}

// plan picks, for each kind, the first of its versions the API server
// serves. A built-in kind it does not serve is denied; a custom kind whose
// CRD is not installed is read: there are none.
func (r *reader) plan(kinds []inventory.Kind, served map[string]bool) {
	for _, k := range kinds {
		info := inventory.Info(k)
		v := ""
		for _, cand := range info.Versions {
			if served[info.Group+"/"+cand+"/"+info.Resource] {
				v = cand
				break
			}
		}
		switch {
		case v != "":
			r.jobs = append(r.jobs, readJob{k, v})
		case info.Builtin:
			r.deny(k, fmt.Sprintf("the API server does not serve %s %s", info.ResourceName(), strings.Join(info.Versions, "/")))
		default:
			r.inv.MarkRead(k) // its CRD is not installed: there are none
		}
	}
}

// checkAccess asks, one SelfSubjectAccessReview a kind, which kinds the
// user may list, and denies the others.
func (r *reader) checkAccess() {
	r.allowed = make([]bool, len(r.jobs))
	runAll(r.ctx, r.o.Concurrency, len(r.jobs), func(i int) {
		info := inventory.Info(r.jobs[i].k)
		r.p.show("checking access to " + info.ResourceName())
		ok, why := canList(r.ctx, r.cs, info, scopeNamespace(info, r.o.Namespace))
		if !ok {
			r.deny(r.jobs[i].k, why)
			return
		}
		r.allowed[i] = true
	})
}

// listAll lists every allowed kind into the inventory. A kind forbidden
// after all is denied; the first other failure is kept in firstErr.
func (r *reader) listAll() {
	rc := r.cs.CoreV1().RESTClient()
	runAll(r.ctx, r.o.Concurrency, len(r.jobs), func(i int) {
		if !r.allowed[i] {
			return
		}
		k := r.jobs[i].k
		info := inventory.Info(k)
		err := listKind(r.ctx, rc, info, r.jobs[i].version, scopeNamespace(info, r.o.Namespace), r.o, r.p, func(f func(*inventory.Inventory) error) error {
			r.mu.Lock()
			defer r.mu.Unlock()
			return f(r.inv)
		})
		var se *apierrors.StatusError
		switch {
		case err == nil:
			r.markRead(k)
		case errors.As(err, &se) && apierrors.IsForbidden(err):
			r.deny(k, "forbidden: "+se.ErrStatus.Message)
		case errors.As(err, &se) && apierrors.IsNotFound(err) && !info.Builtin:
			r.markRead(k)
		default:
			r.mu.Lock()
			if r.firstErr == nil {
				r.firstErr = fmt.Errorf("list %s: %s", info.ResourceName(), describeErr(err))
			}
			r.mu.Unlock()
		}
	})
}

// scopeNamespace is the namespace a kind is read in ("" for all).
func scopeNamespace(info inventory.KindInfo, ns string) string {
	if !info.Namespaced {
		return ""
	}
	if info.Namespace != "" {
		return info.Namespace
	}
	return ns
}

func describeErr(err error) string {
	var ne net.Error
	var ue *url.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return "timed out (is the server reachable? see --request-timeout)"
	case errors.As(err, &ue):
		return strings.TrimSpace(ue.Err.Error())
	}
	return err.Error()
}

// discover returns the served group/version/resource triples. Groups whose
// discovery failed (a broken aggregated API) are left out; others still
// count.
func discover(d discovery.DiscoveryInterface) (map[string]bool, error) {
	_, lists, err := d.ServerGroupsAndResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, err
	}
	out := map[string]bool{}
	for _, l := range lists {
		gv, perr := parseGV(l.GroupVersion)
		if perr != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			out[gv[0]+"/"+gv[1]+"/"+r.Name] = true
		}
	}
	return out, nil
}

func parseGV(s string) ([2]string, error) {
	if i := strings.Index(s, "/"); i >= 0 {
		return [2]string{s[:i], s[i+1:]}, nil
	}
	if s == "" {
		return [2]string{}, errors.New("empty group version")
	}
	return [2]string{"", s}, nil
}

func canList(ctx context.Context, cs kubernetes.Interface, info inventory.KindInfo, ns string) (bool, string) {
	r, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: "list", Group: info.Group, Resource: info.Resource, Namespace: ns,
		}},
	}, metav1.CreateOptions{})
	if err != nil {
		return false, "could not ask for permission: " + describeErr(err)
	}
	if !r.Status.Allowed {
		where := "cluster-wide"
		if ns != "" {
			where = "in namespace " + ns
		}
		why := fmt.Sprintf("not allowed to list %s %s", info.ResourceName(), where)
		if r.Status.Reason != "" {
			why += ": " + r.Status.Reason
		}
		return false, why
	}
	return true, ""
}

type listPage struct {
	Metadata struct {
		Continue           string `json:"continue"`
		RemainingItemCount *int64 `json:"remainingItemCount"`
	} `json:"metadata"`
	Items []json.RawMessage `json:"items"`
}

const metadataAccept = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"

func listKind(ctx context.Context, rc rest.Interface, info inventory.KindInfo, version, ns string, o Options, p *progress, locked func(func(*inventory.Inventory) error) error) error {
	path := "/api/" + version
	if info.Group != "" {
		path = "/apis/" + info.Group + "/" + version
	}
	if ns != "" {
		path += "/namespaces/" + ns
	}
	path += "/" + info.Resource
	accept := "application/json"
	if info.MetadataOnly || info.CountOnly {
		accept = metadataAccept
	}
	limit := o.PageSize
	if info.CountOnly {
		limit = 1 // the count comes from remainingItemCount
	}
	cont := ""
	counted := 0
	for page := 1; ; page++ {
		p.show(fmt.Sprintf("listing %s (page %d)", info.ResourceName(), page))
		req := rc.Get().AbsPath(path).Param("limit", strconv.FormatInt(limit, 10)).SetHeader("Accept", accept)
		if cont != "" {
			req = req.Param("continue", cont)
		}
		body, err := req.DoRaw(ctx)
		if err != nil {
			return err
		}
		var lp listPage
		if err := json.Unmarshal(body, &lp); err != nil {
			return fmt.Errorf("decode page %d: %w", page, err)
		}
		if info.CountOnly {
			counted += len(lp.Items)
			if lp.Metadata.RemainingItemCount != nil {
				return locked(func(inv *inventory.Inventory) error {
					inv.AddCount(inventory.Kind(info.Kind), counted+int(*lp.Metadata.RemainingItemCount), false)
					return nil
				})
			}
			if lp.Metadata.Continue == "" || page >= o.CountPages {
				atLeast := lp.Metadata.Continue != ""
				return locked(func(inv *inventory.Inventory) error {
					inv.AddCount(inventory.Kind(info.Kind), counted, atLeast)
					return nil
				})
			}
			limit = o.PageSize
		} else {
			err := locked(func(inv *inventory.Inventory) error {
				for _, it := range lp.Items {
					if err := inv.Add(inventory.Kind(info.Kind), it, inventory.Source{}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		if lp.Metadata.Continue == "" {
			return nil
		}
		cont = lp.Metadata.Continue
	}
}

// runAll calls f(0..n-1) with at most c running at once, stopping early
// when ctx ends.
func runAll(ctx context.Context, c, n int, f func(i int)) {
	sem := make(chan struct{}, c)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			f(i)
		}(i)
	}
	wg.Wait()
}

// progress draws one self-overwriting line, for terminals only.
type progress struct {
	w    io.Writer
	n    *atomic.Int64
	mu   sync.Mutex
	last time.Time
	used bool
}

func (p *progress) show(what string) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	p.used = true
	line := fmt.Sprintf("kubegap: %s · %d requests", what, p.n.Load())
	if len(line) > 78 {
		line = line[:78]
	}
	fmt.Fprintf(p.w, "\r\033[K%s", line)
}

func (p *progress) done() {
	if p == nil || p.w == nil || !p.used {
		return
	}
	fmt.Fprint(p.w, "\r\033[K")
}
