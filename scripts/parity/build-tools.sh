#!/usr/bin/env bash
# Builds the two tools the parity test (`npm run test:parity`) runs NVIDIA's bundle with, from the
# Go module proxy: helm v3.22.0 and helmfile v1.8.0; and a third, the CNCF distribution registry
# v3.1.2 (a local OCI registry: the install benchmark serves the fixture charts from it). Nothing
# goes into the repository; everything lives under ${NVCF_PARITY_CACHE:-~/.cache/nvcf-parity}:
#   go/{mod,cache}        GOMODCACHE / GOCACHE (kept: a warm rebuild is mostly linking)
#   w/<tool>-<version>/   throw-away wrapper Go modules
#   bin/                  helm, helmfile, registry
#   logs/                 one log per build
#   env.sh                NVCF_PARITY_HELM, NVCF_PARITY_HELMFILE, NVCF_PARITY_REGISTRY, and NVCF_BUNDLE
#                         when set (the test reads it)
# Idempotent: a binary that exists is skipped. Cold, about 30 min on 2 busy cores (helm 6 min,
# helmfile 25 min, registry 3 min): run it in the background, e.g.
#   NVCF_BUNDLE=/path/to/nvcf.git nohup scripts/parity/build-tools.sh > ~/.cache/nvcf-parity/build.log 2>&1 &
# NVCF_BUNDLE (a checkout or a git directory of NVIDIA/nvcf) is recorded in env.sh for the test.
#
# Why a wrapper for helmfile: its go.mod carries `replace` directives (k8s.io/api, apimachinery,
# client-go pinned below what its requirements select), which `go install` refuses; a small
# module that requires helmfile and copies those replaces builds it unchanged.
set -euo pipefail

HELM_VERSION=${HELM_VERSION:-3.22.0}
HELMFILE_VERSION=${HELMFILE_VERSION:-1.8.0}
REGISTRY_VERSION=${REGISTRY_VERSION:-3.1.2}
ROOT=${NVCF_PARITY_CACHE:-$HOME/.cache/nvcf-parity}
BIN=$ROOT/bin
LOGS=$ROOT/logs
WRAP=$ROOT/w
export PATH=/usr/local/go/bin:$PATH
export GOPATH=$ROOT/go GOMODCACHE=$ROOT/go/mod GOCACHE=$ROOT/go/cache
export GOTOOLCHAIN=local GOFLAGS=-modcacherw CGO_ENABLED=0
BUILD_P=${BUILD_P:-2}
mkdir -p "$BIN" "$LOGS" "$WRAP"
command -v go >/dev/null || { echo "no Go toolchain on PATH (needs go >= 1.26.6)" >&2; exit 1; }

log() { printf '[parity-tools %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

build_helm() {
  # helm's own go.mod has no replace directives: `go install` works, with the version the
  # release builds stamp (helmfile reads `helm version`).
  GOBIN=$WRAP/helm-bin go install -p "$BUILD_P" -trimpath \
    -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=v$HELM_VERSION" \
    "helm.sh/helm/v3/cmd/helm@v$HELM_VERSION"
  mv "$WRAP/helm-bin/helm" "$BIN/helm"
}

build_helmfile() {
  local W=$WRAP/helmfile-$HELMFILE_VERSION GM
  rm -rf "$W"; mkdir -p "$W"; cd "$W"
  go mod init rt.local/helmfile >/dev/null 2>&1
  GM=$(go mod download -json "github.com/helmfile/helmfile@v$HELMFILE_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  # Copy upstream's non-local replaces (module => module version).
  sed -n '/^replace (/,/^)/p; /^replace [^(]/p' "$GM" | sed -E 's#//.*$##; s/^replace //' |
    awk -F'=>' 'NF==2 {split($1,l," "); split($2,r," "); if (r[1] !~ /^[.\/]/) print l[1] "=" r[1] "@" r[2]}' |
    while read -r r; do go mod edit -replace="$r"; done
  go get -tool "github.com/helmfile/helmfile@v$HELMFILE_VERSION"
  go mod tidy
  go build -p "$BUILD_P" -trimpath -ldflags "-s -w -X go.szostok.io/version.version=v$HELMFILE_VERSION" \
    -o "$BIN/helmfile.tmp" github.com/helmfile/helmfile
  mv "$BIN/helmfile.tmp" "$BIN/helmfile"
}

build_registry() {
  # distribution's go.mod has no replace directives either; version stamped as its Makefile does.
  GOBIN=$WRAP/registry-bin go install -p "$BUILD_P" -trimpath \
    -ldflags "-s -w -X github.com/distribution/distribution/v3/version.version=v$REGISTRY_VERSION" \
    "github.com/distribution/distribution/v3/cmd/registry@v$REGISTRY_VERSION"
  mv "$WRAP/registry-bin/registry" "$BIN/registry"
}

FAILED=()
for tool in helm helmfile registry; do
  if [ -x "$BIN/$tool" ]; then log "$tool: present, skipped"; continue; fi
  log "$tool: building (log: $LOGS/$tool.log)"
  if (set -euo pipefail; "build_$tool") >"$LOGS/$tool.log" 2>&1; then
    log "$tool: built"
  else
    log "$tool: FAILED, see $LOGS/$tool.log"; FAILED+=("$tool")
  fi
done

# What the parity test reads (test/parity/bundle.ts); NVCF_BUNDLE too when it was set for this run.
{
  echo "export NVCF_PARITY_HELM='$BIN/helm'"
  echo "export NVCF_PARITY_HELMFILE='$BIN/helmfile'"
  echo "export NVCF_PARITY_REGISTRY='$BIN/registry'"
  if [ -n "${NVCF_BUNDLE:-}" ]; then echo "export NVCF_BUNDLE='$(readlink -f "$NVCF_BUNDLE")'"; fi
} >"$ROOT/env.sh"
[ ${#FAILED[@]} -eq 0 ] || { log "failed: ${FAILED[*]}"; exit 1; }
"$BIN/helm" version --short && "$BIN/helmfile" version -o short 2>/dev/null || true
"$BIN/registry" --version || true
log "done: $ROOT/env.sh"
