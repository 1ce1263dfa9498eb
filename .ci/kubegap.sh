#!/usr/bin/env bash
# kubegap CI: builds a real kube-apiserver and etcd once (cached outside the
# clone, keyed by version), then runs kubegap's tests with the live tests
# required, its fuzz test for a short while, and the dependency check.
#
#   bash .ci/kubegap.sh            # everything
#   bash .ci/kubegap.sh build      # only build/cache the binaries, print the dir
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

kube_version=$(cd tools/kube && go list -m -f '{{.Version}}' k8s.io/kubernetes)
etcd_version=$(cd tools/kube/etcd && go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)
cache_root=${KUBEGAP_CACHE_ROOT:-/var/cache/incidentlib}
bin_dir="$cache_root/kube-$kube_version-etcd-$etcd_version"

build_binaries() {
  if [ -x "$bin_dir/kube-apiserver" ] && [ -x "$bin_dir/etcd" ]; then
    echo "== kube binaries: cached in $bin_dir"
    return
  fi
  echo "== kube binaries: building kube-apiserver $kube_version and etcd $etcd_version (cold: ~10 min on 2 cores)"
  mkdir -p "$cache_root"
  tmp=$(mktemp -d "$cache_root/.build.XXXXXX")
  # Same flags every time, so a warm Go build cache makes this take seconds.
  (cd tools/kube && CGO_ENABLED=0 go build -trimpath -o "$tmp/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver)
  (cd tools/kube/etcd && CGO_ENABLED=0 go build -trimpath -o "$tmp/etcd" go.etcd.io/etcd/server/v3)
  "$tmp/kube-apiserver" --version
  # No "| head" here: under pipefail, etcd dying of SIGPIPE would fail the build.
  etcd_v=$("$tmp/etcd" --version)
  echo "${etcd_v%%$'\n'*}"
  rm -rf "$bin_dir"
  mv "$tmp" "$bin_dir"   # atomic: a half-built dir is never taken as cached
}

build_binaries
if [ "${1:-}" = build ]; then
  echo "$bin_dir"
  exit 0
fi

echo "== kubegap: gofmt + vet"
unformatted=$(gofmt -l cmd/kubegap internal/kubegap)
if [ -n "$unformatted" ]; then echo "gofmt would change:"; echo "$unformatted"; exit 1; fi
go vet ./cmd/kubegap/... ./internal/kubegap/...

echo "== kubegap: tests (live tests required, against $bin_dir)"
KUBEGAP_KUBE_BIN="$bin_dir" KUBEGAP_REQUIRE_LIVE=1 \
  go test -race -count=1 ./cmd/kubegap/... ./internal/kubegap/...

echo "== kubegap: fuzz the manifest reader (${KUBEGAP_FUZZTIME:-2m})"
go test -run '^$' -fuzz '^FuzzReadManifests$' -fuzztime "${KUBEGAP_FUZZTIME:-2m}" ./internal/kubegap/manifest

echo "== kubegap: docs/checks.md is up to date"
go run ./cmd/kubegap checks -o markdown > "$root/.ci/.checks.md.tmp"
if ! cmp -s "$root/.ci/.checks.md.tmp" docs/checks.md; then
  rm -f "$root/.ci/.checks.md.tmp"
  echo "docs/checks.md is stale: go run ./cmd/kubegap checks -o markdown > docs/checks.md"; exit 1
fi
rm -f "$root/.ci/.checks.md.tmp"
echo "kubegap: ok"
