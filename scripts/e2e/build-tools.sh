#!/usr/bin/env bash
# Builds the real tools the end-to-end tests run against, from the Go module proxy:
#   etcd, kube-apiserver, kube-controller-manager, pulumi (CLI), pulumi-resource-kubernetes, helm (the
#   CLI `npm run recover` rolls back and uninstalls interrupted releases with),
#   pulumi-language-nodejs (the Node.js language host the CLI runs `index.ts` with), nats-server
#   (the NATS the bundle's chart runs), bao (the OpenBao the bundle's chart runs) and
#   vault-plugin-secrets-jwt (the JWT secrets plugin NVIDIA's OpenBao image carries), Cassandra
#   (its jars, from Maven Central, run with the machine's Java) with cqlsh (from PyPI), the database
#   of NVIDIA's cassandra chart and the client of its hooks, and the CRDs
#   of the objects the program reads and writes (crds/: NVCA's NVCFBackend, Gateway API's
#   experimental channel, Kyverno's ClusterPolicy) with the openbao chart's values (crds/openbao/:
#   the suite's OpenBao runs the chart's server config), copied from their sources, never written here;
#   and the Pulumi Kubernetes Operator fleet/ pins (pko-manager, pko-agent: its manager and workspace
#   agent, run in the operator's local mode by test/e2e/operator.test.ts) with its CRDs and ClusterRole
#   (crds/pko/, crds/pko/rbac/), from a checkout of its repository (OPERATOR_SOURCE); and gofakes3,
#   an S3-compatible server, for the S3 backend's case of test/e2e/shared-backend.test.ts.
# The proxy serves neither the language host's module nor OpenBao's main module, so each is built
# from a checkout of its repository given at run time (a git directory, bare or not), with every
# dependency from the module proxy:
#   PULUMI_SOURCE=/path/to/pulumi.git OPENBAO_SOURCE=/path/to/openbao.git \
#   NVCF_SOURCE=/path/to/nvcf.git OPERATOR_SOURCE=/path/to/pulumi-kubernetes-operator.git build-tools.sh
# NVCF_SOURCE (NVIDIA/nvcf; NVCF_BUNDLE, the parity test's, is taken when it is unset) gives the
# JWT plugin's source and NVCA's CRD at the pinned commit (NVCF_REF). Without a source the tool
# that needs it is skipped, and the suites that need it fail naming it.
#
# Everything built or downloaded lives OUTSIDE the repository, under
#   ${NVCF_E2E_CACHE:-~/.cache/nvcf-e2e}
#     go/{mod,cache}        GOMODCACHE / GOCACHE (keep between runs: a warm rebuild is mostly linking)
#     w/<tool>-<version>/   throw-away wrapper Go modules
#     bin-<versions>/       the finished binaries
#     logs/                 one log per build (+ /usr/bin/time -v report), summary.tsv
#     env.sh                exports for the tests (source it)
#
# Idempotent: a binary that already exists is skipped, so a second run takes seconds.
# A cold run takes about 70 min on 2 cores: run it in the background, e.g.
#   nohup scripts/e2e/build-tools.sh > ~/.cache/nvcf-e2e/build.log 2>&1 &
#
# Usage: build-tools.sh [TOOL...]     TOOL in: etcd kube-apiserver kube-controller-manager pulumi kubernetes helm language-nodejs
#                                              nats-server openbao jwt-plugin crds cassandra cqlsh operator s3
#        build-tools.sh smoke         start etcd + kube-apiserver briefly, run kubectl get ns, stop them
#
# Why wrappers: none of these can be `go install`ed (their go.mod files carry local replace
# directives), so each is built from a small generated module that requires the upstream module
# at a released version and copies upstream's non-local replaces.
#
set -euo pipefail
SELF=$(readlink -f "${BASH_SOURCE[0]}")

# ---- versions -------------------------------------------------------------------------------
ETCD_VERSION=${ETCD_VERSION:-3.7.3}
KUBE_VERSION=${KUBE_VERSION:-1.37.2}
PULUMI_VERSION=${PULUMI_VERSION:-3.276.0}
# pulumi-kubernetes has no provider/v4.x tags; the proxy serves exactly one pseudo-version,
# commit f47bc2d6f199 = tag v4.25.0. Newer releases (e.g. 4.34.2) are refused by the proxy.
K8S_PROVIDER_VERSION=${K8S_PROVIDER_VERSION:-4.25.0}
K8S_PROVIDER_MODVER=${K8S_PROVIDER_MODVER:-v4.0.0-20260115033456-f47bc2d6f199}
# The Helm that kubernetes provider embeds (its go.mod requires helm.sh/helm/v3 at this version).
HELM_VERSION=${HELM_VERSION:-3.18.6}
# The language host has no tags of its own; it is built at a pulumi/pulumi release tag, against
# pkg/v3 and sdk/v3 at that same release (the engine and the host speak a stable gRPC protocol,
# so a host older than the CLI is fine).
LANGUAGE_HOST_REF=${LANGUAGE_HOST_REF:-v3.259.0}
PULUMI_SOURCE=${PULUMI_SOURCE:-}
# The NATS server the bundle's nats chart deploys (its image tag 2.11.17-alpine3.22; the chart's
# appVersion says 2.11.10, which the module proxy does not serve).
NATS_VERSION=${NATS_VERSION:-2.11.17}
# The OpenBao NVIDIA's openbao chart pins (appVersion 2.5.5-nv-...), built from tag v$OPENBAO_VERSION.
OPENBAO_VERSION=${OPENBAO_VERSION:-2.5.5}
OPENBAO_SOURCE=${OPENBAO_SOURCE:-}
# NVIDIA/nvcf at the commit the program pins (scripts/parity/tools.ts PINNED_BUNDLE).
NVCF_SOURCE=${NVCF_SOURCE:-${NVCF_BUNDLE:-}}
NVCF_REF=${NVCF_REF:-fadc0f815832fe82b4ddd15932843d3dca6e9463}
# The Gateway API release the bundle needs (experimental channel), and a Kyverno whose ClusterPolicy
# CRD is kyverno.io/v1 (the kind the program's pull-secret policy is): both from the module proxy,
# whose module zips carry the repositories' CRD files.
GATEWAY_API_VERSION=${GATEWAY_API_VERSION:-1.2.0}
KYVERNO_VERSION=${KYVERNO_VERSION:-1.13.4}
# The Cassandra NVIDIA's cassandra image is built on (FROM cassandra:5.0.8), run from its jars on
# Maven Central with the machine's Java 17, and cqlsh (the one the image's hooks use) from PyPI.
CASSANDRA_VERSION=${CASSANDRA_VERSION:-5.0.8}
CQLSH_VERSION=${CQLSH_VERSION:-6.2.2}
# The Pulumi Kubernetes Operator fleet/ installs (fleet/settings/upstream.ts OPERATOR_CHART), built
# from tag v$OPERATOR_VERSION of a checkout of pulumi/pulumi-kubernetes-operator: its go.mod's
# replace directives refuse `go install`, and they name module versions only, so the tag's own
# module builds as it is, every dependency from the module proxy.
OPERATOR_VERSION=${OPERATOR_VERSION:-2.9.0}
OPERATOR_SOURCE=${OPERATOR_SOURCE:-}
# An S3-compatible server for Pulumi's S3 backend (no AWS here): gofakes3's own command.
GOFAKES3_VERSION=${GOFAKES3_VERSION:-1.2.0}

# ---- layout / Go environment ----------------------------------------------------------------
ROOT=${NVCF_E2E_CACHE:-$HOME/.cache/nvcf-e2e}
BIN=${NVCF_E2E_BIN:-$ROOT/bin-etcd$ETCD_VERSION-kube$KUBE_VERSION-pulumi$PULUMI_VERSION-k8s$K8S_PROVIDER_VERSION}
LOGS=$ROOT/logs
WRAP=$ROOT/w
ENV_FILE=$ROOT/env.sh
export GOPATH=$ROOT/go
export GOMODCACHE=$ROOT/go/mod
export GOCACHE=$ROOT/go/cache
export GOTOOLCHAIN=local
export GOFLAGS=-modcacherw
export CGO_ENABLED=0
# 2 cores: at most 2 packages compiled at once (and a single link at a time).
BUILD_P=${BUILD_P:-2}
mkdir -p "$BIN" "$LOGS" "$WRAP" "$GOMODCACHE" "$GOCACHE"

log() { printf '[build-tools %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# Path of a module's .mod file / extracted dir in the module cache (downloads it).
moddl() { go mod download -json "$1" | sed -n "s/.*\"$2\": \"\(.*\)\".*/\1/p"; }

# Copy the non-local replace directives of a go.mod file into the current module.
copy_replaces() {
  grep -h '=>' "$1" | sed -E 's#//.*$##; s/^[[:space:]]*replace[[:space:]]+//' |
    awk -F'=>' 'NF<2{next} {split($1,l," "); split($2,r," "); if (r[1]=="" || r[1] ~ /^[.\/]/) next;
                 print l[1] (l[2]?"@"l[2]:"") "=" r[1] "@" r[2]}' |
    while read -r r; do go mod edit -replace="$r"; done
}

fresh_wrapper() { # dir modname
  rm -rf "$1"; mkdir -p "$1"; cd "$1"; go mod init "$2" >/dev/null 2>&1
}

# ---- one function per binary (each runs in a subshell under /usr/bin/time -v) ---------------
build_etcd() {
  local W=$WRAP/etcd-$ETCD_VERSION
  fresh_wrapper "$W" rt.local/etcd
  # server/main.go (package main of module go.etcd.io/etcd/server/v3) calls etcdmain.Main.
  go get -tool "go.etcd.io/etcd/server/v3@v$ETCD_VERSION"
  go mod tidy
  go build -p "$BUILD_P" -trimpath -ldflags "-s -w" -o "$BIN/etcd.tmp" go.etcd.io/etcd/server/v3
  mv "$BIN/etcd.tmp" "$BIN/etcd"
}

# build_kube_cmd NAME: k8s.io/kubernetes/cmd/NAME at KUBE_VERSION (kube-apiserver, kube-controller-manager).
build_kube_cmd() {
  local name=$1 W=$WRAP/$1-$KUBE_VERSION SV=0.${KUBE_VERSION#1.} MINOR GM
  MINOR=$(echo "$KUBE_VERSION" | cut -d. -f2)
  fresh_wrapper "$W" "rt.local/$name"
  GM=$(moddl "k8s.io/kubernetes@v$KUBE_VERSION" GoMod)
  # k8s.io/kubernetes requires every staging module at v0.0.0 => ./staging/...; pin them to the
  # published v0.<minor>.<patch> instead.
  sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => \./staging/.*#\1#p' "$GM" |
    while read -r m; do go mod edit -replace="$m=$m@v$SV"; done
  go get -tool "k8s.io/kubernetes/cmd/$name@v$KUBE_VERSION"
  go mod tidy
  # Version ldflags are required: without them the server reports v0.0 and the Pulumi
  # kubernetes provider refuses to configure ("minimum supported cluster version is v1.13").
  go build -p "$BUILD_P" -trimpath -ldflags "-s -w \
    -X k8s.io/component-base/version.gitVersion=v$KUBE_VERSION \
    -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$MINOR \
    -X k8s.io/component-base/version.gitTreeState=clean" \
    -o "$BIN/$name.tmp" "k8s.io/kubernetes/cmd/$name"
  mv "$BIN/$name.tmp" "$BIN/$name"
}
build_kube_apiserver() { build_kube_cmd kube-apiserver; }
# Only the OpenBao rollout test starts it, with the StatefulSet controller alone.
build_kube_controller_manager() { build_kube_cmd kube-controller-manager; }

pulumi_wrapper() { # DIR MODNAME VERSION: pkg/v3 + sdk/v3 at one release, with upstream's replaces
  local W=$1 v=$3 f
  fresh_wrapper "$W" "$2"
  go get "github.com/pulumi/pulumi/pkg/v3@v$v" "github.com/pulumi/pulumi/sdk/v3@v$v"
  for m in pkg/v3 sdk/v3; do # clipboard fork, golang.org/x/text pin
    f=$(moddl "github.com/pulumi/pulumi/$m@v$v" GoMod)
    copy_replaces "$f"
  done
}
pulumi_ldflags() { echo "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$1"; }

build_pulumi() {
  pulumi_wrapper "$WRAP/pulumi-$PULUMI_VERSION" rt.local/pulumi "$PULUMI_VERSION"
  go get -tool "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi@v$PULUMI_VERSION"
  go mod tidy
  go build -p "$BUILD_P" -trimpath -tags osusergo,grpcnotrace -ldflags "$(pulumi_ldflags "$PULUMI_VERSION")" \
    -o "$BIN/pulumi.tmp" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
  mv "$BIN/pulumi.tmp" "$BIN/pulumi"
}

build_kubernetes() {
  local W=$WRAP/k8sprov-$K8S_PROVIDER_VERSION M=github.com/pulumi/pulumi-kubernetes/provider/v4 D
  fresh_wrapper "$W" rt.local/k8sprov
  mkdir -p cmd/pulumi-resource-kubernetes
  go get "$M@$K8S_PROVIDER_MODVER"
  copy_replaces "$(moddl "$M@$K8S_PROVIDER_MODVER" GoMod)"
  D=$(moddl "$M@$K8S_PROVIDER_MODVER" Dir)
  # Upstream's main embeds schema-embed.json / terraform-mapping-embed.json, which `go generate`
  # writes and git ignores, so they are not in the module zip: make them here (same as
  # upstream's generate.go: schema.json with "version" set, both re-marshalled compactly).
  node -e 'const fs=require("fs");const s=JSON.parse(fs.readFileSync(process.argv[1]));s.version=process.argv[2];fs.writeFileSync(process.argv[3],JSON.stringify(s))' \
    "$D/cmd/pulumi-resource-kubernetes/schema.json" "$K8S_PROVIDER_VERSION" cmd/pulumi-resource-kubernetes/schema-embed.json
  node -e 'const fs=require("fs");fs.writeFileSync(process.argv[2],JSON.stringify(JSON.parse(fs.readFileSync(process.argv[1]))))' \
    "$D/cmd/pulumi-resource-kubernetes/terraform-mapping.json" cmd/pulumi-resource-kubernetes/terraform-mapping-embed.json
  cat > cmd/pulumi-resource-kubernetes/main.go <<'EOF'
// Same calls as upstream's provider/cmd/pulumi-resource-kubernetes/main.go.
package main

import (
	_ "embed"

	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/provider"
	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version"
)

//go:embed schema-embed.json
var pulumiSchema []byte

//go:embed terraform-mapping-embed.json
var terraformMapping []byte

func main() { provider.Serve("kubernetes", version.Version, pulumiSchema, terraformMapping) }
EOF
  go mod tidy
  go build -p "$BUILD_P" -trimpath \
    -ldflags "-s -w -X github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version.Version=$K8S_PROVIDER_VERSION" \
    -o "$BIN/pulumi-resource-kubernetes.tmp" ./cmd/pulumi-resource-kubernetes
  mv "$BIN/pulumi-resource-kubernetes.tmp" "$BIN/pulumi-resource-kubernetes"
}

build_helm() {
  # helm's go.mod has no replace directives, so it builds straight from the module.
  local T=$WRAP/helm-$HELM_VERSION
  rm -rf "$T"; mkdir -p "$T"
  GOBIN=$T go install -p "$BUILD_P" -trimpath \
    -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=v$HELM_VERSION -X helm.sh/helm/v3/internal/version.gitTreeState=clean" \
    "helm.sh/helm/v3/cmd/helm@v$HELM_VERSION"
  mv "$T/helm" "$BIN/helm"
}

build_language_nodejs() {
  local W=$WRAP/language-nodejs-$LANGUAGE_HOST_REF V=${LANGUAGE_HOST_REF#v} D=sdk/nodejs/cmd/pulumi-language-nodejs
  rm -rf "$W"; mkdir -p "$W"
  git -C "$PULUMI_SOURCE" archive "$LANGUAGE_HOST_REF" "$D" | tar -x -C "$W"
  cd "$W/$D"
  # Its go.mod points pkg/v3 and sdk/v3 at the repository's own folders: take the release instead.
  go mod edit -dropreplace github.com/pulumi/pulumi/pkg/v3 -dropreplace github.com/pulumi/pulumi/sdk/v3
  go mod edit -require "github.com/pulumi/pulumi/pkg/v3@v$V" -require "github.com/pulumi/pulumi/sdk/v3@v$V"
  go mod tidy
  go build -p "$BUILD_P" -trimpath -ldflags "$(pulumi_ldflags "$V")" -o "$BIN/pulumi-language-nodejs.tmp" .
  mv "$BIN/pulumi-language-nodejs.tmp" "$BIN/pulumi-language-nodejs"
}

build_cassandra() {
  # cassandra-all and its runtime dependencies, the jars the server runs from (Maven keeps its own cache).
  local T=$BIN/cassandra.tmp
  rm -rf "$T"; mkdir -p "$T"
  cat >"$T/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>e2e</groupId><artifactId>cassandra-runtime</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>org.apache.cassandra</groupId><artifactId>cassandra-all</artifactId><version>$CASSANDRA_VERSION</version></dependency>
  </dependencies>
</project>
POM
  mvn -B -q -f "$T/pom.xml" -Dmaven.repo.local="$ROOT/m2" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$T/lib"
  rm "$T/pom.xml"
  mv "$T" "$BIN/cassandra"
}

build_cqlsh() {
  # A venv is not relocatable, so it is made where it stays; the wrapper, written last, marks it done.
  # The driver's C extensions are skipped (pure Python): nothing here needs their speed.
  rm -rf "$BIN/cqlsh-venv" "$BIN/cqlsh"
  python3 -m venv "$BIN/cqlsh-venv"
  CASS_DRIVER_NO_EXTENSIONS=1 "$BIN/cqlsh-venv/bin/pip" install -q --disable-pip-version-check "cqlsh==$CQLSH_VERSION"
  printf '#!/bin/sh\nexec "%s" "$@"\n' "$BIN/cqlsh-venv/bin/cqlsh" >"$BIN/cqlsh.tmp"
  chmod +x "$BIN/cqlsh.tmp"
  mv "$BIN/cqlsh.tmp" "$BIN/cqlsh"
}

build_nats_server() {
  # nats-server's go.mod has no replace directives, so it builds straight from the module.
  local T=$WRAP/nats-server-$NATS_VERSION
  rm -rf "$T"; mkdir -p "$T"
  GOBIN=$T go install -p "$BUILD_P" -trimpath -ldflags "-s -w" "github.com/nats-io/nats-server/v2@v$NATS_VERSION"
  mv "$T/nats-server" "$BIN/nats-server"
}

build_s3() {
  # Its go.mod has no replace directives: its command builds straight from the module.
  local T=$WRAP/gofakes3-$GOFAKES3_VERSION
  rm -rf "$T"; mkdir -p "$T"
  GOBIN=$T go install -p "$BUILD_P" -trimpath -ldflags "-s -w" "github.com/johannesboyne/gofakes3/cmd/gofakes3@v$GOFAKES3_VERSION"
  mv "$T/gofakes3" "$BIN/gofakes3"
}

build_openbao() {
  # Its go.mod points api/v2, sdk/v2 and a bolt stub at folders of the repository: built in a
  # copy of the tag's tree, so those resolve, and everything else comes from the module proxy.
  local W=$WRAP/openbao-$OPENBAO_VERSION
  rm -rf "$W"; mkdir -p "$W"
  git -C "$OPENBAO_SOURCE" archive "v$OPENBAO_VERSION" | tar -x -C "$W"
  cd "$W"
  go build -p "$BUILD_P" -trimpath \
    -ldflags "-s -w -X github.com/openbao/openbao/version.fullVersion=$OPENBAO_VERSION" \
    -o "$BIN/bao.tmp" .
  mv "$BIN/bao.tmp" "$BIN/bao"
}

build_operator() {
  # Upstream's Dockerfile builds exactly these two packages, CGO off, the version in the ldflags.
  # The CRDs (deploy/crds/, the chart's crds/ too) and the kustomize ClusterRole and its binding
  # (the chart's clusterrole.yaml) are copied beside the other CRDs; the manager, moved last, marks it done.
  local W=$WRAP/pulumi-kubernetes-operator-$OPERATOR_VERSION M=github.com/pulumi/pulumi-kubernetes-operator/v2
  rm -rf "$W"; mkdir -p "$W"
  git -C "$OPERATOR_SOURCE" archive "v$OPERATOR_VERSION" | tar -x -C "$W"
  cd "$W"
  go build -p "$BUILD_P" -trimpath -ldflags "-s -w -X $M/operator/version.Version=v$OPERATOR_VERSION" -o "$BIN/pko-manager.tmp" ./operator/cmd
  go build -p "$BUILD_P" -trimpath -ldflags "-s -w -X $M/agent/version.Version=v$OPERATOR_VERSION" -o "$BIN/pko-agent.tmp" ./agent
  rm -rf "$BIN/crds.pko.tmp"; mkdir -p "$BIN/crds.pko.tmp/rbac" "$BIN/crds"
  cp deploy/crds/*.yaml "$BIN/crds.pko.tmp/"
  cp operator/config/rbac/role.yaml operator/config/rbac/role_binding.yaml "$BIN/crds.pko.tmp/rbac/"
  rm -rf "$BIN/crds/pko"; mv "$BIN/crds.pko.tmp" "$BIN/crds/pko"
  mv "$BIN/pko-agent.tmp" "$BIN/pko-agent"
  mv "$BIN/pko-manager.tmp" "$BIN/pko-manager"
}

# nvcf_tree PATH DEST: a path of NVIDIA/nvcf at NVCF_REF (a git directory, bare or not, or a working tree at that commit).
nvcf_tree() {
  mkdir -p "$2"
  if git --git-dir="$NVCF_SOURCE" rev-parse --verify -q "$NVCF_REF^{commit}" >/dev/null 2>&1; then
    git --git-dir="$NVCF_SOURCE" archive "$NVCF_REF:$1" | tar -x -C "$2"
  elif [ "$(git -C "$NVCF_SOURCE" rev-parse HEAD 2>/dev/null)" = "$NVCF_REF" ]; then
    cp -r "$NVCF_SOURCE/$1/." "$2"
  else
    echo "NVCF_SOURCE=$NVCF_SOURCE holds no commit $NVCF_REF" >&2; return 1
  fi
}

build_jwt_plugin() {
  # The binary infra/openbao/Dockerfile copies into the image's plugin directory; a module of its own.
  local W=$WRAP/vault-plugin-secrets-jwt-${NVCF_REF:0:12}
  rm -rf "$W"
  nvcf_tree infra/openbao/plugins/vault-plugin-secrets-jwt "$W"
  cd "$W"
  go build -p "$BUILD_P" -trimpath -ldflags "-s -w" -o "$BIN/vault-plugin-secrets-jwt.tmp" ./cmd/vault-plugin-secrets-jwt
  mv "$BIN/vault-plugin-secrets-jwt.tmp" "$BIN/vault-plugin-secrets-jwt"
}

fetch_crds() {
  local T=$WRAP/crds W=$WRAP/crds-mod GW KY
  rm -rf "$T"; mkdir -p "$T/gateway-api" "$T/kyverno" "$T/nvca"
  fresh_wrapper "$W" rt.local/crds
  # NVCA's: the nvca-operator chart's (its one template line, the chart's labels, dropped) and the
  # two the operator creates at start-up (its reconcile manifests).
  nvcf_tree deploy/helm/nvca-operator/nvca-operator/templates/crds "$W/chart"
  sed -e '/{{/d' -e 's/^  labels:$/  labels: {}/' "$W/chart/nvidia.io_nvcfbackends_crd.yaml" >"$T/nvca/nvidia.io_nvcfbackends_crd.yaml"
  nvcf_tree src/compute-plane-services/nvca/pkg/operator/reconcile/manifests "$W/operator"
  cp "$W"/operator/nvcf.nvidia.io_{miniservices,storagerequests}_crd.yaml "$T/nvca/"
  GW=$(moddl "sigs.k8s.io/gateway-api@v$GATEWAY_API_VERSION" Dir)
  cp "$GW"/config/crd/experimental/gateway.networking.k8s.io_*.yaml "$T/gateway-api/"
  KY=$(moddl "github.com/kyverno/kyverno@v$KYVERNO_VERSION" Dir)
  cp "$KY/config/crds/kyverno/kyverno.io_clusterpolicies.yaml" "$T/kyverno/"
  # The openbao chart's values: the suite's OpenBao members run with its server config.
  mkdir -p "$W/openbao" "$T/openbao"
  nvcf_tree deploy/helm/openbao/helm "$W/openbao"
  cp "$W/openbao/values.yaml" "$T/openbao/values.yaml"
  chmod -R u+w "$T"
  # The operator's, copied by build_operator, stay.
  if [ -d "$BIN/crds/pko" ]; then mv "$BIN/crds/pko" "$T/pko"; elif [ -d "$BIN/crds.pko.keep" ]; then mv "$BIN/crds.pko.keep" "$T/pko"; fi
  rm -rf "$BIN/crds"; mv "$T" "$BIN/crds"
}

# ---- driver ---------------------------------------------------------------------------------
ensure_time() {
  if ! /usr/bin/time -v true >/dev/null 2>&1; then
    log "installing GNU time"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null
  fi
}

# run_build TOOL BINARY FUNCTION: skip if present, else run FUNCTION under /usr/bin/time -v.
FAILED=()
run_build() {
  local tool=$1 bin=$2 fn=$3 lf tf wall rss rc
  if [ -x "$BIN/$bin" ]; then log "$bin: present, skipped"; return 0; fi
  lf=$LOGS/$tool.log; tf=$LOGS/$tool.time
  log "$bin: building (log: $lf)"
  set +e
  /usr/bin/time -v -o "$tf" bash -c "set -euo pipefail; source '$SELF' --lib; $fn" >"$lf" 2>&1
  rc=$?
  set -e
  wall=$(sed -n 's/.*Elapsed (wall clock) time.*: //p' "$tf")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tf")
  printf '%s\t%s\trc=%s\twall=%s\tmaxrss_kb=%s\n' "$(date -Is)" "$tool" "$rc" "$wall" "$rss" >>"$LOGS/summary.tsv"
  if [ "$rc" -eq 0 ]; then
    log "$bin: built in $wall, peak RSS $((rss / 1024)) MiB"
  else
    log "$bin: FAILED (rc=$rc) after $wall; last lines of $lf:"; tail -n 15 "$lf" >&2
    FAILED+=("$tool")
  fi
}

write_env() {
  {
    echo "# generated by scripts/e2e/build-tools.sh; source this file"
    echo "export NVCF_E2E_BIN='$BIN'"
    echo "export PATH=\"\$NVCF_E2E_BIN:\$PATH\""
    for b in etcd kube-apiserver kube-controller-manager pulumi pulumi-resource-kubernetes helm pulumi-language-nodejs nats-server bao \
      vault-plugin-secrets-jwt crds cassandra cqlsh pko-manager pko-agent gofakes3; do
      v=$(echo "$b" | tr 'a-z-' 'A-Z_')
      if [ -e "$BIN/$b" ]; then echo "export E2E_${v}='$BIN/$b'"; else echo "unset E2E_${v}"; fi
    done
    echo "export E2E_PULUMI_VERSION='$PULUMI_VERSION' E2E_K8S_PROVIDER_VERSION='$K8S_PROVIDER_VERSION'"
    echo "export E2E_KUBE_VERSION='$KUBE_VERSION' E2E_ETCD_VERSION='$ETCD_VERSION' E2E_HELM_VERSION='$HELM_VERSION'"
    echo "export E2E_NATS_VERSION='$NATS_VERSION' E2E_OPENBAO_VERSION='$OPENBAO_VERSION' E2E_NVCF_REF='$NVCF_REF'"
    echo "export E2E_GATEWAY_API_VERSION='$GATEWAY_API_VERSION' E2E_KYVERNO_VERSION='$KYVERNO_VERSION'"
    echo "export E2E_CASSANDRA_VERSION='$CASSANDRA_VERSION' E2E_CQLSH_VERSION='$CQLSH_VERSION' E2E_OPERATOR_VERSION='$OPERATOR_VERSION'"
    echo "export E2E_GOFAKES3_VERSION='$GOFAKES3_VERSION'"
    echo "export PULUMI_SKIP_UPDATE_CHECK=true PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true"
  } >"$ENV_FILE.tmp"
  mv "$ENV_FILE.tmp" "$ENV_FILE"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

smoke() {
  local D TOKEN CP PP AP EPID APID rc=0
  if [ -x "$BIN/pulumi" ]; then echo "pulumi version: $("$BIN/pulumi" version)"; else echo "pulumi: MISSING"; rc=1; fi
  if [ -x "$BIN/pulumi-resource-kubernetes" ]; then
    # A plugin prints the port of its gRPC server on stdout when started, then serves until killed.
    echo "pulumi-resource-kubernetes started, gRPC port: $(timeout 10 "$BIN/pulumi-resource-kubernetes" </dev/null 2>/dev/null | head -n 1)"
  else echo "pulumi-resource-kubernetes: MISSING"; rc=1; fi
  "$BIN/etcd" --version | sed -n 1p
  "$BIN/kube-apiserver" --version
  # kube-apiserver >= 1.37 refuses a loopback advertise address with the default (lease)
  # endpoint reconciler, hence --endpoint-reconciler-type=none.
  D=$(mktemp -d); TOKEN=$(head -c16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  CP=$(free_port); PP=$(free_port); AP=$(free_port)
  "$BIN/etcd" --name e2e --data-dir "$D/etcd" --listen-client-urls "http://127.0.0.1:$CP" \
    --advertise-client-urls "http://127.0.0.1:$CP" --listen-peer-urls "http://127.0.0.1:$PP" \
    --initial-advertise-peer-urls "http://127.0.0.1:$PP" --initial-cluster "e2e=http://127.0.0.1:$PP" \
    --unsafe-no-fsync --log-level warn >"$D/etcd.log" 2>&1 &
  EPID=$!
  for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$CP/health" >/dev/null 2>&1 && break; sleep 0.2; done
  openssl genrsa -out "$D/sa.key" 2048 2>/dev/null; openssl rsa -in "$D/sa.key" -pubout -out "$D/sa.pub" 2>/dev/null
  echo "$TOKEN,admin,admin,system:masters" >"$D/tokens.csv"
  "$BIN/kube-apiserver" --etcd-servers="http://127.0.0.1:$CP" --bind-address=127.0.0.1 \
    --advertise-address=127.0.0.1 --secure-port="$AP" --cert-dir="$D/pki" \
    --service-cluster-ip-range=10.0.0.0/24 --service-account-issuer=https://kubernetes.default.svc \
    --service-account-key-file="$D/sa.pub" --service-account-signing-key-file="$D/sa.key" \
    --token-auth-file="$D/tokens.csv" --authorization-mode=RBAC \
    --disable-admission-plugins=ServiceAccount --enable-garbage-collector=false \
    --endpoint-reconciler-type=none --allow-privileged=true ${KUBE_APISERVER_EXTRA_FLAGS:-} >"$D/apiserver.log" 2>&1 &
  APID=$!
  local t0=$SECONDS ok=0
  until curl -fsk -H "Authorization: Bearer $TOKEN" "https://127.0.0.1:$AP/readyz" >/dev/null 2>&1; do
    if ! kill -0 "$APID" 2>/dev/null || [ $((SECONDS - t0)) -gt 120 ]; then ok=1; break; fi
    sleep 0.5
  done
  if [ $ok -eq 0 ]; then
    echo "kube-apiserver ready after $((SECONDS - t0)) s"
    kubectl --server "https://127.0.0.1:$AP" --token "$TOKEN" --insecure-skip-tls-verify get ns || rc=1
    local K=(kubectl --server "https://127.0.0.1:$AP" --token "$TOKEN" --certificate-authority "$D/pki/apiserver.crt")
    "${K[@]}" version || rc=1
    # With --enable-garbage-collector=false a foreground delete (the Pulumi provider's default)
    # must not leave a foregroundDeletion finalizer behind.
    "${K[@]}" create configmap e2e-smoke --from-literal=a=b && \
      "${K[@]}" delete configmap e2e-smoke --cascade=foreground --timeout=20s || rc=1
  else
    rc=1; echo "kube-apiserver did not become ready; last log lines:"; tail -n 30 "$D/apiserver.log"
  fi
  kill "$APID" 2>/dev/null || true; wait "$APID" 2>/dev/null || true
  kill "$EPID" 2>/dev/null || true; wait "$EPID" 2>/dev/null || true
  [ $rc -eq 0 ] && rm -rf "$D" || echo "logs kept in $D"
  return $rc
}

[ "${1:-}" = "--lib" ] && return 0 2>/dev/null

main() {
  ensure_time
  log "go: $(go version); GOMODCACHE=$GOMODCACHE GOCACHE=$GOCACHE; bin: $BIN"
  local tools=("$@")
  [ ${#tools[@]} -eq 0 ] && tools=(etcd kube-apiserver kube-controller-manager pulumi kubernetes helm language-nodejs nats-server openbao \
    jwt-plugin crds cassandra cqlsh operator s3)
  if [ "${tools[0]}" = smoke ]; then smoke; return; fi
  for t in "${tools[@]}"; do
    case $t in
      etcd) run_build etcd etcd build_etcd ;;
      kube-apiserver) run_build kube-apiserver kube-apiserver build_kube_apiserver ;;
      kube-controller-manager) run_build kube-controller-manager kube-controller-manager build_kube_controller_manager ;;
      pulumi) run_build pulumi pulumi build_pulumi ;;
      kubernetes) run_build kubernetes pulumi-resource-kubernetes build_kubernetes ;;
      helm) run_build helm helm build_helm ;;
      language-nodejs)
        if [ -n "$PULUMI_SOURCE" ]; then
          run_build language-nodejs pulumi-language-nodejs build_language_nodejs
        elif [ ! -x "$BIN/pulumi-language-nodejs" ]; then
          log "pulumi-language-nodejs: skipped (set PULUMI_SOURCE to a pulumi/pulumi git checkout)"
        fi ;;
      nats-server) run_build nats-server nats-server build_nats_server ;;
      s3) run_build s3 gofakes3 build_s3 ;;
      cassandra) run_build cassandra cassandra build_cassandra ;;
      cqlsh) run_build cqlsh cqlsh build_cqlsh ;;
      openbao)
        if [ -n "$OPENBAO_SOURCE" ]; then
          run_build openbao bao build_openbao
        elif [ ! -x "$BIN/bao" ]; then
          log "bao: skipped (set OPENBAO_SOURCE to an openbao/openbao git checkout)"
        fi ;;
      jwt-plugin | crds)
        local bin=vault-plugin-secrets-jwt fn=build_jwt_plugin
        [ "$t" = crds ] && bin=crds fn=fetch_crds
        # Upstream files fetched before they held the openbao chart's values: fetched again.
        # (The operator's, in crds/pko, are set aside and put back by fetch_crds.)
        if [ "$t" = crds ] && [ -n "$NVCF_SOURCE" ] && [ ! -e "$BIN/crds/openbao/values.yaml" ]; then
          if [ -d "$BIN/crds/pko" ]; then rm -rf "$BIN/crds.pko.keep"; mv "$BIN/crds/pko" "$BIN/crds.pko.keep"; fi
          rm -rf "$BIN/crds"
        fi
        if [ -n "$NVCF_SOURCE" ]; then
          run_build "$t" "$bin" "$fn"
        elif [ ! -e "$BIN/$bin" ]; then
          log "$bin: skipped (set NVCF_SOURCE to an NVIDIA/nvcf git checkout)"
        fi ;;
      operator)
        # A manager without its CRDs (a crds/ removed by hand) is built again: warm, mostly linking.
        if [ -x "$BIN/pko-manager" ] && [ ! -e "$BIN/crds/pko/pulumi.com_stacks.yaml" ]; then rm -f "$BIN/pko-manager"; fi
        if [ -n "$OPERATOR_SOURCE" ]; then
          run_build operator pko-manager build_operator
        elif [ ! -x "$BIN/pko-manager" ]; then
          log "pko-manager, pko-agent: skipped (set OPERATOR_SOURCE to a pulumi/pulumi-kubernetes-operator git checkout)"
        fi ;;
      *) echo "unknown tool: $t" >&2; return 2 ;;
    esac
  done
  write_env
  log "binaries: $BIN"; ls -l "$BIN" >&2
  log "env file: $ENV_FILE"
  echo "$BIN"
  if [ ${#FAILED[@]} -gt 0 ]; then log "FAILED: ${FAILED[*]}"; return 1; fi
}

main "$@"
