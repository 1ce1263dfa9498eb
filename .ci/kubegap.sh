#!/usr/bin/env bash
# kubegap CI: builds a real kube-apiserver and etcd once (cached outside the
# clone, keyed by version), then runs kubegap's tests with the live tests
# required, its fuzz test for a short while, and the dependency check.
#
#   bash .ci/kubegap.sh            # everything
#   bash .ci/kubegap.sh build      # only build/cache the binaries, print the dir
#   bash .ci/kubegap.sh addons     # only scan Kubernetes' own addon manifests
#   bash .ci/kubegap.sh krew       # only validate the krew manifest and package.sh
#   bash .ci/kubegap.sh fuzz       # only fuzz the manifest reader ($KUBEGAP_FUZZTIME)
#
# The build's messages go to stderr, so that "build" prints only the
# directory on stdout and callers may take it with $(…) while the CI log
# still shows what was built and how long it took.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

kube_version=$(cd tools/kube && go list -m -f '{{.Version}}' k8s.io/kubernetes)
etcd_version=$(cd tools/kube/etcd && go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)
cache_root=${KUBEGAP_CACHE_ROOT:-/var/cache/incidentlib}
bin_dir="$cache_root/kube-$kube_version-etcd-$etcd_version"

# kubegap itself: the binary the caller built ($KUBEGAP_BIN, as .ci/run
# does), or go run.
kubegap() {
  if [ -n "${KUBEGAP_BIN:-}" ]; then "$KUBEGAP_BIN" "$@"; else go run ./cmd/kubegap "$@"; fi
}

# The Go build cache is the caller's (.ci/run puts it under
# $INCIDENTLIB_CACHE), shared with every other build of the run: with the
# flags below, the same as deploy/krew/package.sh's, and the versions that
# tools/kube/go.mod pins to the main module's, the packages both link
# (client-go, apimachinery, the API types, protobuf, x/net, x/sys) are
# compiled once. A cache apart from it would compile them twice.
go_cache=$(go env GOCACHE)
# Same flags every time: a flag that differs misses the build cache.
build_flags=(-trimpath -buildvcs=false)
# The tests need a real kube-apiserver and etcd, not fast ones. Every
# package that only they link (in their closure, but neither in the
# standard library nor in the closure of the main module's packages and
# tests) is compiled without optimisation or inlining, which makes the
# cold build much cheaper; the packages they share with the main module
# (client-go, apimachinery, the API types, protobuf, x/net, x/sys) keep
# the default flags, so that deploy/krew/package.sh and .ci/recipes.sh,
# which build with the same CGO_ENABLED=0 -trimpath, find them in the
# cache. (Whole modules only, 965 of kube-apiserver's 1,850 packages were
# left to optimise; 496 more, such as client-go's informers and typed
# clients, are linked by nothing else. Without optimisation, client-go's
# informers and typed clients compiled in 182 s against 240 s.)
# The binaries carry no DWARF (-w, and -dwarf=false for the packages only
# they link, so that it is not generated to be thrown away), which nothing
# here reads.
# unoptimised_flags DIR PKG prints the -gcflags for building PKG (in module
# DIR): every package without optimisation, then the standard library and
# each package that the main module links too (in PKG's closure and in the
# closure of the main module's packages and tests) back to the default
# flags (the last pattern that matches a package wins), sorted, so that the
# flags, and with them the build cache's keys, are the same on every run.
# Listing the shared packages rather than the unoptimised ones (412 against
# 1,438 for kube-apiserver) keeps the go command's matching of patterns to
# packages short: with a pattern per unoptimised package, loading
# kube-apiserver's packages took 66 s before anything was compiled.
unoptimised_flags() {
  local dir=$1 pkg=$2 fmt='{{if not .Standard}}{{.ImportPath}}{{end}}'
  echo '-gcflags=all=-N -l -dwarf=false'
  echo '-gcflags=std='
  comm -12 <(cd "$dir" && CGO_ENABLED=0 go list -deps -f "$fmt" "$pkg" | LC_ALL=C sort -u) \
    <(cd "$root" && CGO_ENABLED=0 go list -deps -test -f "$fmt" ./... | LC_ALL=C sort -u) |
    sed 's/.*/-gcflags=&=/'
}

build_binaries() {
  if [ -x "$bin_dir/kube-apiserver" ] && [ -x "$bin_dir/etcd" ]; then
    echo "== kube binaries: cached in $bin_dir" >&2
    return
  fi
  echo "== kube binaries: building kube-apiserver $kube_version and etcd $etcd_version (GOCACHE=$go_cache; cold: 10-45 min on 2 cores, warm: about a minute)" >&2
  mkdir -p "$cache_root" "$go_cache"
  tmp=$(mktemp -d "$cache_root/.build.XXXXXX")
  local t0=$SECONDS
  local flags
  mapfile -t flags < <(unoptimised_flags tools/kube k8s.io/kubernetes/cmd/kube-apiserver)
  echo "== kube binaries: kube-apiserver: every package it links compiled without optimisation but the standard library and $((${#flags[@]} - 2)) that the main module links too" >&2
  (cd tools/kube && CGO_ENABLED=0 GOCACHE="$go_cache" go build "${build_flags[@]}" -ldflags=-w "${flags[@]}" -o "$tmp/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver) >&2
  echo "== kube binaries: kube-apiserver built in $((SECONDS - t0))s" >&2
  local t1=$SECONDS
  mapfile -t flags < <(unoptimised_flags tools/kube/etcd go.etcd.io/etcd/server/v3)
  echo "== kube binaries: etcd: every package it links compiled without optimisation but the standard library and $((${#flags[@]} - 2)) that the main module links too" >&2
  (cd tools/kube/etcd && CGO_ENABLED=0 GOCACHE="$go_cache" go build "${build_flags[@]}" -ldflags=-w "${flags[@]}" -o "$tmp/etcd" go.etcd.io/etcd/server/v3) >&2
  echo "== kube binaries: etcd built in $((SECONDS - t1))s; both in $((SECONDS - t0))s" >&2
  # Versions are read into variables, never piped to head: under pipefail
  # a binary that dies of SIGPIPE when head closes the pipe fails the build.
  local v
  v=$("$tmp/kube-apiserver" --version)
  echo "${v%%$'\n'*}" >&2
  v=$("$tmp/etcd" --version)
  echo "${v%%$'\n'*}" >&2
  rm -rf "$bin_dir"
  mv "$tmp" "$bin_dir"   # atomic: a half-built dir is never taken as cached
}

check_addons() {
  echo "== kubegap: Kubernetes' own addon manifests (k8s.io/kubernetes $kube_version from the module cache) are read to the end"
  # (the module zip is about 22 MB, and the module cache holds it after the
  # kube-apiserver build; with cached binaries it may have to be fetched.)
  kdir=$(cd tools/kube && go mod download -json k8s.io/kubernetes)
  kdir=${kdir#*\"Dir\": \"}; kdir=${kdir%%\"*}
  addons="$kdir/cluster/addons"
  out="$root/.ci/.addons.json"
  code=0
  kubegap scan -f "$addons" -o json --fail-on none > "$out" || code=$?
  # 3: scanned to the end, and part of the input (templates that do not
  # decode, duplicates) could not be read, which the report lists.
  if [ "$code" != 3 ]; then echo "kubegap scan of $addons exited $code, want 3 (scanned, with input problems)"; rm -f "$out"; exit 1; fi
  for want in '"objects_checked": [1-9]' 'coredns.yaml.base' 'unrendered template placeholder `__DNS__MEMORY__LIMIT__` in spec.template.spec.containers\[0\].resources.limits.memory: render the template first' '"check": "dns-few-replicas"'; do
    if ! grep -q -- "$want" "$out"; then echo "the scan of $addons lacks $want"; rm -f "$out"; exit 1; fi
  done
  # The placeholder's field is unknown, not unset: no memory-limit finding
  # on the CoreDNS Deployment of coredns.yaml.base.
  if python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if any(f["check"]=="no-memory-limit" and f["object"]["name"]=="coredns" and f["file"].endswith("coredns.yaml.base") for f in r["findings"]) else 1)' "$out"; then
    echo "the scan of $addons reports no-memory-limit on CoreDNS, whose memory limit is a placeholder"; rm -f "$out"; exit 1
  fi
  rm -f "$out"
}

# check_krew validates deploy/krew/gap.yaml with krew's own validator, and
# that package.sh builds an archive whose sum it writes into a copy.
# krew's validator is built as the kube binaries and package.sh build
# (CGO_ENABLED=0 -trimpath), so that the standard library packages it links
# come from their build.
check_krew() {
  echo "== kubegap: the krew manifest passes krew's validator"
  CGO_ENABLED=0 go run -trimpath sigs.k8s.io/krew/cmd/validate-krew-manifest@v0.4.3 -manifest deploy/krew/gap.yaml -skip-install
  local tmp sum
  tmp=$(mktemp -d)
  cp deploy/krew/gap.yaml "$tmp/gap.yaml"
  KREW_MANIFEST="$tmp/gap.yaml" bash deploy/krew/package.sh v0.0.1 "$tmp/dist" linux/amd64 >/dev/null
  sum=$(sha256sum "$tmp/dist/kubectl-gap_linux_amd64.tar.gz"); sum=${sum%% *}
  if ! grep -q "sha256: $sum" "$tmp/gap.yaml" || ! grep -q "version: v0.0.1" "$tmp/gap.yaml"; then
    echo "package.sh did not write the archive's sum and version into the manifest"; rm -rf "$tmp"; exit 1
  fi
  CGO_ENABLED=0 go run -trimpath sigs.k8s.io/krew/cmd/validate-krew-manifest@v0.4.3 -manifest "$tmp/gap.yaml" -skip-install
  rm -rf "$tmp"
}

# fuzz_reader fuzzes the manifest reader for $KUBEGAP_FUZZTIME (2m unless
# set); .ci/run runs it too, in the background beside the live tests.
# CGO_ENABLED=0 -trimpath, as the kube binaries build: the fuzzer instruments
# the package's own closure, and the standard library it links uninstrumented
# comes from their build.
# -fuzzminimizetime 2s: while an input that found new coverage is being
# shrunk, the fuzzer runs no new inputs on any worker, and Go's default
# budget for the shrinking is 60 s an input. With it, in the twelve CI logs
# of 2026-12-05 and 06 kept, the execution count of the 60 s run last grew
# 6 to 39 s in and stood still after ("execs: 106086 (0/sec)" from 18 s on
# in 6983f07's); with 2 s it grows to the end (docs/PERFORMANCE.md,
# "Fuzzing the manifest reader").
fuzz_reader() {
  echo "== kubegap: fuzz the manifest reader (${KUBEGAP_FUZZTIME:-2m})"
  CGO_ENABLED=0 go test -trimpath -run '^$' -fuzz '^FuzzReadManifests$' -fuzztime "${KUBEGAP_FUZZTIME:-2m}" -fuzzminimizetime 2s ./internal/kubegap/manifest
}

if [ "${1:-}" = fuzz ]; then
  fuzz_reader
  exit 0
fi

if [ "${1:-}" = krew ]; then
  check_krew
  exit 0
fi

if [ "${1:-}" = addons ]; then
  check_addons
  exit 0
fi

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
KUBEGAP_KUBE_BIN="$bin_dir" KUBEGAP_REQUIRE_LIVE=1 KUBEGAP_REQUIRE_SARIF_SCHEMA=1 \
  go test -race -count=1 ./cmd/kubegap/... ./internal/kubegap/...

fuzz_reader

check_addons

echo "== kubegap: docs/checks.md is up to date"
kubegap checks -o markdown > "$root/.ci/.checks.md.tmp"
if ! cmp -s "$root/.ci/.checks.md.tmp" docs/checks.md; then
  rm -f "$root/.ci/.checks.md.tmp"
  echo "docs/checks.md is stale: go run ./cmd/kubegap checks -o markdown > docs/checks.md"; exit 1
fi
rm -f "$root/.ci/.checks.md.tmp"
echo "kubegap: ok"
