#!/usr/bin/env bash
# Web site CI: the handler tests, then the browser tests in headless
# Chromium with axe-core. Installs Debian's chromium (and a Korean font, so
# the screenshots show text rather than boxes) when missing, and the npm dev
# dependencies from package-lock.json. Screenshots land in test-artefacts/.
#
#   bash .ci/web.sh
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

need_pkgs=()
command -v chromium >/dev/null 2>&1 || need_pkgs+=(chromium)
if [ -z "$(fc-list :lang=ko 2>/dev/null)" ]; then need_pkgs+=(fonts-noto-cjk); fi  # no "| grep -q": SIGPIPE under pipefail
if [ ${#need_pkgs[@]} -gt 0 ]; then
  echo "== web: apt-get install ${need_pkgs[*]}"
  as_root apt-get -o DPkg::Lock::Timeout=600 update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${need_pkgs[@]}"
fi
echo "== web: $(chromium --version 2>/dev/null || echo 'chromium: version unknown')"

echo "== web: npm ci (axe-core)"
npm ci --no-audit --no-fund

echo "== web: gofmt + vet"
unformatted=$(gofmt -l internal/web)
if [ -n "$unformatted" ]; then echo "gofmt would change:"; echo "$unformatted"; exit 1; fi
go vet ./internal/web/...

echo "== web: handler tests and browser tests (required)"
# The browser tests skip on a machine without chromium or node_modules;
# here that is a failure.
INCIDENTLIB_BROWSER_TESTS=1 INCIDENTLIB_CHROMIUM="$(command -v chromium)" \
  go test -race -count=1 ./internal/web/...

echo "== web: screenshots in test-artefacts/browser/"
ls test-artefacts/browser/ | sed 's/^/   /'
echo "web: ok"
