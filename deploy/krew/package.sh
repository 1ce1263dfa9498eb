#!/usr/bin/env bash
# Builds the kubectl-gap archives that deploy/krew/gap.yaml names, into
# DIR (default dist/), and rewrites the manifest for VERSION with their
# sha256 sums. The manifest is not published to the krew index; install
# from the archives with
#   kubectl krew install --manifest=deploy/krew/gap.yaml --archive=dist/kubectl-gap_linux_amd64.tar.gz
#
#   bash deploy/krew/package.sh v0.1.0 [DIR] [os/arch ...]
set -euo pipefail
cd "$(dirname "$0")/../.."
version=${1:?usage: package.sh VERSION [DIR] [os/arch ...]}
out=${2:-dist}
shift $(( $# >= 2 ? 2 : 1 ))
platforms=("$@")
[ ${#platforms[@]} -gt 0 ] || platforms=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64)
case "$version" in v[0-9]*.[0-9]*.[0-9]*) ;; *) echo "VERSION must look like v1.2.3, not $version" >&2; exit 2 ;; esac
mkdir -p "$out"
manifest=${KREW_MANIFEST:-deploy/krew/gap.yaml}
for p in "${platforms[@]}"; do
  os=${p%/*} arch=${p#*/}
  bin=kubectl-gap
  [ "$os" = windows ] && bin=kubectl-gap.exe
  tmp=$(mktemp -d)
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -buildvcs=false \
    -ldflags "-s -w -X github.com/incidentlib/incidentlib/internal/kubegap/cli.Version=$version" -o "$tmp/$bin" ./cmd/kubegap
  archive="$out/kubectl-gap_${os}_${arch}.tar.gz"
  tar -C "$tmp" --mtime=@0 --owner=0 --group=0 --numeric-owner -czf "$archive" "$bin"
  rm -rf "$tmp"
  sum=$(sha256sum "$archive"); sum=${sum%% *}
  # The sha256 line follows the platform's uri line in the manifest.
  awk -v name="kubectl-gap_${os}_${arch}.tar.gz" -v sum="$sum" '
    index($0, "/" name) { print; getline; sub(/sha256: .*/, "sha256: " sum); print; next } { print }' "$manifest" > "$manifest.tmp"
  mv "$manifest.tmp" "$manifest"
  echo "$archive $sum"
done
sed -i "s|^  version: .*|  version: $version|; s|/releases/download/v[^/]*/|/releases/download/$version/|" "$manifest"
