// Package kubetest starts a real etcd and kube-apiserver on loopback for
// kubegap's live tests. The binaries come from KUBEGAP_KUBE_BIN (or
// KUBEBUILDER_ASSETS); `bash .ci/kubegap.sh build` builds and caches them.
// Without them the tests skip, unless KUBEGAP_REQUIRE_LIVE=1, when they fail.
package kubetest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Tokens of the users the API server knows (static token file).
const (
	AdminToken   = "kubegap-admin-token"   // system:masters, used to load objects
	ScannerToken = "kubegap-scanner-token" // system:masters, used by scans whose requests are audited
	LimitedToken = "kubegap-limited-token" // no groups: only what the test binds
	ReaderToken  = "kubegap-reader-token"  // no groups: bound to `kubegap rbac`'s roles by the test
)

// Cluster is a running API server.
type Cluster struct {
	Host       string // https://127.0.0.1:PORT
	Kubeconfig string // contexts admin, scanner, limited, reader
	AuditLog   string
	Dir        string
}

// BinDir returns the folder holding kube-apiserver and etcd, or "".
func BinDir() string {
	for _, d := range []string{os.Getenv("KUBEGAP_KUBE_BIN"), os.Getenv("KUBEBUILDER_ASSETS")} {
		if d == "" {
			continue
		}
		if isExec(filepath.Join(d, "kube-apiserver")) && isExec(filepath.Join(d, "etcd")) {
			return d
		}
	}
	return ""
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// Require skips (or, with KUBEGAP_REQUIRE_LIVE=1, fails) the test when the
// binaries are absent, and returns their folder.
func Require(t testing.TB) string {
	t.Helper()
	d := BinDir()
	if d != "" {
		return d
	}
	msg := "kube-apiserver and etcd not found: set KUBEGAP_KUBE_BIN to a folder holding both (bash .ci/kubegap.sh build builds them and prints it)"
	if os.Getenv("KUBEGAP_REQUIRE_LIVE") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Start runs etcd and kube-apiserver until the test ends.
func Start(t testing.TB) *Cluster {
	t.Helper()
	bin := Require(t)
	dir, err := os.MkdirTemp("", "kubegap-live-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ctx, cancel := context.WithCancel(context.Background())
	s := &starter{t: t, ctx: ctx, cancel: cancel, bin: bin, dir: dir}

	clientPort, peerPort, apiPort := freePort(t), freePort(t), freePort(t)
	etcdURL := s.etcd(clientPort, peerPort)
	host, audit := s.apiserver(etcdURL, apiPort)
	kc := writeKubeconfig(t, dir, host)
	return &Cluster{Host: host, Kubeconfig: kc, AuditLog: audit, Dir: dir}
}

// starter is one run of Start: the test, the binaries' and the cluster's
// folders, and the processes' stops, run last first when the test ends.
type starter struct {
	t        testing.TB
	ctx      context.Context
	cancel   context.CancelFunc
	bin, dir string
	stop     []func()
}

// etcd starts etcd on the client and peer ports, waits until it is
// healthy, and returns its client URL.
func (s *starter) etcd(clientPort, peerPort int) string {
	t, dir := s.t, s.dir
	t.Helper()
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", clientPort)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	etcd := exec.CommandContext(s.ctx, filepath.Join(s.bin, "etcd"),
		"--name=kubegap", "--data-dir="+filepath.Join(dir, "etcd"),
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=kubegap="+peerURL, "--unsafe-no-fsync", "--log-level=error")
	etcdLog := logFile(t, dir, "etcd.log")
	etcd.Stdout, etcd.Stderr = etcdLog, etcdLog
	if err := etcd.Start(); err != nil {
		s.cancel()
		t.Fatalf("start etcd: %v", err)
	}
	t.Cleanup(func() {
		for i := len(s.stop) - 1; i >= 0; i-- {
			s.stop[i]()
		}
	})
	s.stop = append(s.stop, func() { s.cancel(); etcd.Wait() })
	waitFor(t, 30*time.Second, "etcd", filepath.Join(dir, "etcd.log"), func() bool {
		r, err := http.Get(etcdURL + "/health")
		if err != nil {
			return false
		}
		r.Body.Close()
		return r.StatusCode == 200
	})
	return etcdURL
}

// apiserverFiles writes the API server's service account key, static
// tokens and audit policy, and returns their paths and the audit log's.
func (s *starter) apiserverFiles() (saKey, tokens, policy, audit string) {
	t, dir := s.t, s.dir
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	saKey = filepath.Join(dir, "sa.key")
	write(t, saKey, string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})))
	tokens = filepath.Join(dir, "tokens.csv")
	write(t, tokens, fmt.Sprintf("%s,admin,1,system:masters\n%s,scanner,2,system:masters\n%s,limited,3\n%s,reader,4\n", AdminToken, ScannerToken, LimitedToken, ReaderToken))
	policy = filepath.Join(dir, "audit-policy.yaml")
	write(t, policy, "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived, ResponseStarted]\nrules:\n- level: Metadata\n  users: [scanner, limited]\n- level: None\n")
	audit = filepath.Join(dir, "audit.log")
	return saKey, tokens, policy, audit
}

// apiserver starts kube-apiserver on port over etcd, waits until it is
// ready, and returns its URL and its audit log's path.
func (s *starter) apiserver(etcdURL string, port int) (host, audit string) {
	t, dir := s.t, s.dir
	t.Helper()
	saKey, tokens, policy, audit := s.apiserverFiles()
	api := exec.CommandContext(s.ctx, filepath.Join(s.bin, "kube-apiserver"),
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", port),
		"--cert-dir="+filepath.Join(dir, "certs"),
		"--token-auth-file="+tokens, "--authorization-mode=RBAC",
		"--service-cluster-ip-range=10.0.0.0/24", "--endpoint-reconciler-type=none",
		"--disable-admission-plugins=ServiceAccount",
		"--service-account-key-file="+saKey, "--service-account-signing-key-file="+saKey,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--audit-policy-file="+policy, "--audit-log-path="+audit, "--audit-log-mode=blocking",
		"--v=0")
	apiLog := logFile(t, dir, "apiserver.log")
	api.Stdout, api.Stderr = apiLog, apiLog
	if err := api.Start(); err != nil {
		t.Fatalf("start kube-apiserver: %v", err)
	}
	s.stop = append(s.stop, func() { api.Process.Signal(os.Interrupt); api.Wait() })
	host = fmt.Sprintf("https://127.0.0.1:%d", port)
	hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	waitFor(t, 90*time.Second, "kube-apiserver", filepath.Join(dir, "apiserver.log"), func() bool {
		req, _ := http.NewRequest("GET", host+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+AdminToken)
		r, err := hc.Do(req)
		if err != nil {
			return false
		}
		r.Body.Close()
		return r.StatusCode == 200
	})
	return host, audit
}

// writeKubeconfig writes a kubeconfig for the API server at host with a
// context for each user (admin, scanner, limited, reader), scanner
// current, and returns its path.
func writeKubeconfig(t testing.TB, dir, host string) string {
	t.Helper()
	kc := filepath.Join(dir, "kubeconfig")
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: v1\nkind: Config\nclusters:\n- name: live\n  cluster: {server: %q, insecure-skip-tls-verify: true}\nusers:\n", host)
	for _, u := range [][2]string{{"admin", AdminToken}, {"scanner", ScannerToken}, {"limited", LimitedToken}, {"reader", ReaderToken}} {
		fmt.Fprintf(&b, "- name: %s\n  user: {token: %s}\n", u[0], u[1])
	}
	b.WriteString("contexts:\n")
	for _, u := range []string{"admin", "scanner", "limited", "reader"} {
		fmt.Fprintf(&b, "- name: %s\n  context: {cluster: live, user: %s}\n", u, u)
	}
	b.WriteString("current-context: scanner\n")
	write(t, kc, b.String())
	return kc
}

func write(t testing.TB, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func logFile(t testing.TB, dir, name string) *os.File {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// waitFor polls ready until it holds or the deadline passes; on failure it
// shows the end of the process's log.
func waitFor(t testing.TB, d time.Duration, what, log string, ready func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if ready() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b, _ := os.ReadFile(log)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	t.Fatalf("%s not ready after %s; log:\n%s", what, d, b)
}
