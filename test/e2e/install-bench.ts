/**
 * `npm run bench:install`: how long an environment takes to install when workloads take time to
 * become ready, `pulumi up` of the dev stack against NVIDIA's own Helmfile syncing the bundle's
 * `deploy/stacks/self-managed` in its order (`--sequential-helmfiles`), on the same charts and
 * the same delays, each on a new API server. Every fixture chart gets a Deployment (and the real
 * charts' hook Jobs, where they have them), pulled by both tools from one local OCI registry; the
 * real ReplicaSet and Job controllers (kube-controller-manager) make the pods, and the
 * benchmark's kubelet (delayed-kubelet.ts) marks each pod Ready, or its Job done, after the
 * release's delay below, scaled down. Tools: scripts/e2e/build-tools.sh and
 * scripts/parity/build-tools.sh (helm, helmfile, the registry), and NVCF_BUNDLE.
 */
import { spawn } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse as parseYaml, stringify as toYaml } from "yaml";
import { deepMerge, type Plain } from "../../config/model/deep-merge";
import { CATALOG } from "../../components/catalog/control-plane";
import { addonDependencies, ADDONS } from "../../components/catalog/compute-plane-addons";
import { NVCA_OPERATOR, SMB_CSI_DRIVER } from "../../components/catalog/compute-plane";
import { inotifyTunerDaemonSet } from "../../components/compute-plane/inotify-tuner";
import { mintAdminToken, registerCluster } from "../../lib/icms/icms";
import { discoverClusterIdentity } from "../../lib/cluster-access/oidc-discovery";
import { longestChain, releaseDependencies } from "../../components/control-plane/ordering";
import { findParityTools, type ParityTools } from "../../scripts/parity/tools";
import { bundleSecrets, CASSANDRA_PASSWORD, NGC_KEY } from "../parity/bundle-secrets";
import { benchCharts, type BenchHook } from "./bench-charts";
import { findTools, Kube, LocalCluster, type Tools } from "./cluster";
import { DelayedKubelet } from "./delayed-kubelet";
import { OciRegistry } from "./oci-registry";
import { userCheckout, type PulumiCli } from "./pulumi-cli";
import { FakeControlPlane } from "../support/fake-icms";
import { BaoCluster, openbaoChartConfig } from "./real-openbao";
import { CHARTS } from "./stack-config";
import type { InstallBenchOptions } from "./install-bench-cli";
import { summary } from "./bench-figures";

const REPO = path.resolve(__dirname, "..", "..");
/** The fixture csi-driver-smb chart's version (test/e2e/charts), given to both sides. */
const SMB_VERSION = "v1.17.0";
const PROJECT = "nvcf-self-managed";
const REPOSITORY = "nvidia/nvcf";

/**
 * Seconds from a release's pods' start to Ready (its slowest workload, for a StatefulSet started
 * one pod after another all of them), unscaled: the charts' probes at the pinned commit (initial
 * delay, period, successes needed) plus the time the application takes to start where no probe
 * says it (a Spring Boot service about 60 s, plus 5 s for its OpenBao agent's init container),
 * checked against NVIDIA's phase times (docs/user/helmfile-installation.md: dependencies 5-10
 * min, services 5-10 min). docs/testing.md lists the source of each.
 */
export const READY_SECONDS: Readonly<Record<string, number>> = {
    "prometheus-operator-crds": 0,
    "opentelemetry-operator": 10,
    "victoria-metrics": 15,
    "otel-collector": 0,
    "default-monitors": 0,
    nats: 20,
    "cert-manager": 10,
    "openbao-server": 15,
    // Three pods one after another (OrderedReady), each about 75 s to pass nodetool's probe.
    cassandra: 225,
    "api-keys": 90,
    sis: 90,
    api: 105,
    "nvct-api": 70,
    "invocation-service": 5,
    "grpc-proxy": 15,
    ratelimiter: 15,
    "ess-api": 75,
    "notary-service": 70,
    "admin-issuer-proxy": 15,
    reval: 10,
    "nats-auth-callout-service": 10,
    ingress: 0,
    "state-metrics": 60,
    "function-autoscaler": 35,
    // A GPU cluster's.
    "nvca-operator": 15,
    "kai-scheduler": 10,
    "grove-operator": 15,
    "dynamo-operator": 20,
    "nvcf-kai-topology": 0,
    "nvcf-grove-topology": 0,
    "csi-driver-smb": 5,
};

/** Every add-on of a GPU cluster on, as the e2e suite's GPU plane has them. */
const ADDON_SWITCHES = {
    kaiScheduler: { enabled: true },
    groveOperator: { enabled: true },
    dynamoOperator: { enabled: true },
    topologyAwareScheduling: { enabled: true },
};

/** The hook Jobs of the real charts, with how long each runs (estimates: NVIDIA publishes none). */
export const HOOK_SECONDS: readonly (BenchHook & { readonly seconds: number; readonly what: string })[] = [
    { release: "openbao-server", event: "post-install", seconds: 75, what: "initialize-cluster (30 s) and the migrations (45 s)" },
    { release: "cassandra", event: "post-install", seconds: 130, what: "initialize-cluster (40 s) and the keyspace migrations (90 s)" },
    { release: "api", event: "post-install", seconds: 15, what: "the account bootstrap" },
    { release: "cert-manager", event: "post-install", seconds: 15, what: "startupapicheck" },
    { release: "kai-scheduler", event: "pre-install", seconds: 10, what: "the CRD upgrader" },
];

interface Setup {
    readonly tools: Tools;
    readonly parity: ParityTools & { readonly registry: string };
    readonly work: string;
    readonly registry: OciRegistry;
    readonly charts: string;
    readonly scale: number;
    /** Pulumi.dev.yaml's config, as the stack file holds it. */
    readonly devConfig: Readonly<Record<string, Plain>>;
    /** The dev stack's environment, with the charts from the registry. */
    readonly environment: Plain;
    readonly helmEnv: NodeJS.ProcessEnv;
}

const hookSeconds = (release: string) => HOOK_SECONDS.filter((h) => h.release === release).reduce((sum, h) => sum + h.seconds, 0);

/** A command's run; throws with its output's end unless it exits 0. */
function run(bin: string, args: string[], opts: { cwd?: string; env: NodeJS.ProcessEnv }): Promise<string> {
    return new Promise((resolve, reject) => {
        const child = spawn(bin, args, { ...opts, stdio: ["ignore", "pipe", "pipe"] });
        let out = "";
        child.stdout.on("data", (d: Buffer) => (out += d.toString()));
        child.stderr.on("data", (d: Buffer) => (out += d.toString()));
        child.on("error", reject);
        child.on("close", (code) =>
            code === 0 ? resolve(out) : reject(new Error(`${path.basename(bin)} ${args.join(" ")} exited ${code}:\n${out.slice(-4000)}`)),
        );
    });
}

/**
 * New API servers, each with the ReplicaSet and Job controllers and the delayed kubelet, for one
 * install; the first holds the control plane, so it gets what the dev stack expects installed
 * before it (the Envoy Gateway controller's namespace). Booted one after another (untimed) and
 * torn down after.
 */
async function onNewClusters<T>(setup: Setup, count: number, use: (kubeconfigs: string[]) => Promise<T>): Promise<T> {
    const clusters: LocalCluster[] = [];
    const kubelets: DelayedKubelet[] = [];
    const ms = (s: number) => (s * 1000) / setup.scale;
    try {
        for (let i = 0; i < count; i++) {
            const cluster = new LocalCluster(setup.tools);
            clusters.push(cluster);
            await cluster.boot();
            cluster.startControllerManager(setup.tools.kubeControllerManager, [
                "deployment-controller",
                "replicaset-controller",
                "job-controller",
                // The inotify tuner's DaemonSet: with no node it wants no pod, and its rollout is done.
                "daemonset-controller",
            ]);
            const kubelet = new DelayedKubelet(cluster.kubeconfig, {
                readyMs: (release) => ms(READY_SECONDS[release] ?? 0),
                jobMs: (release) => ms(hookSeconds(release)),
            });
            kubelets.push(kubelet);
            await kubelet.start();
        }
        const controller = ((setup.environment.ingress as Plain).gatewayApi as Plain).controllerNamespace as string;
        const res = await new Kube(clusters[0].kubeconfig).request("POST", "/api/v1/namespaces", { metadata: { name: controller } });
        if (res.status !== 201) throw new Error(`namespace ${controller}: ${res.status} ${res.text.slice(0, 300)}`);
        return await use(clusters.map((c) => c.kubeconfig));
    } finally {
        for (const kubelet of kubelets) await kubelet.stop().catch(() => undefined);
        for (const cluster of clusters) {
            await cluster.stop();
            cluster.removeDir();
        }
    }
}

/** How long a command took, in ms. */
async function timed(f: () => Promise<unknown>): Promise<number> {
    const start = Date.now();
    await f();
    return Date.now() - start;
}

/**
 * The dev stack set up as a user sets it up (a copy of the repository, the CLI, a file backend),
 * with the charts from the registry and the checks that need real workloads off; `use` runs the
 * CLI in it. The stack reaches OpenBao at an address (openbaoAccess): one real member, as the e2e
 * suite runs it.
 */
async function withDevStack<T>(setup: Setup, kubeconfig: string, use: (cli: PulumiCli, stackFile: string) => Promise<T>): Promise<T> {
    const work = fs.mkdtempSync(path.join(setup.work, "pulumi-"));
    const bao = new BaoCluster(setup.tools.bao, path.join(work, "bao"), openbaoChartConfig(setup.tools.crds), 1, setup.tools.jwtPlugin);
    await bao.boot();
    try {
        const config = {
            ...setup.devConfig,
            [`${PROJECT}:cluster`]: { clusterIdentifier: "bench" },
            [`${PROJECT}:controlPlane`]: setup.environment,
            // No workload answers here: the gate, the smoke check and preflight's cluster checks would fail for that alone.
            [`${PROJECT}:checks`]: { preflight: { enabled: false }, healthGate: { enabled: false }, smoke: { helmTests: false } },
            [`${PROJECT}:openbaoAccess`]: { address: bao.url(bao.names[0]) },
            [`${PROJECT}:credentialRotation`]: { enabled: false },
        };
        const { cli, project } = await userCheckout({
            repo: REPO,
            work,
            tools: setup.tools,
            kubeconfig,
            stack: "bench",
            config,
            // Both sides get the same secrets; a configured Cassandra password needs no random provider.
            secrets: { ngcApiKey: NGC_KEY, cassandraPassword: CASSANDRA_PASSWORD },
        });
        return await use(cli, path.join(project, "Pulumi.bench.yaml"));
    } finally {
        await bao.stop();
    }
}

const up = (cli: PulumiCli) => cli.run(["up", "--yes", "--skip-preview"], { timeoutMs: 60 * 60_000 });

/** The suite's ICMS stand-in for the length of `use`. */
async function withIcms<T>(use: (icmsUrl: string) => Promise<T>): Promise<T> {
    const icms = new FakeControlPlane();
    await icms.start();
    try {
        return await use(icms.icmsUrl);
    } finally {
        await icms.stop();
    }
}

/**
 * A fleet of GPU clusters added to an installed control plane in one `pulumi up`: each its own
 * API server, registered with the suite's ICMS stand-in, every add-on on.
 */
async function pulumiFleet(setup: Setup, kubeconfigs: readonly string[]): Promise<number> {
    const [controlPlane, ...gpus] = kubeconfigs;
    return withIcms((icmsUrl) =>
        withDevStack(setup, controlPlane, async (cli, stackFile) => {
            await up(cli);
            const repository = `oci://${setup.registry.host}/${REPOSITORY}`;
            const planes = gpus.map((_, i) => ({
                clusterName: `gpu-${i + 1}`,
                cluster: { clusterIdentifier: `gpu-${i + 1}` },
                registration: { icmsURL: icmsUrl, apiKeysURL: icmsUrl, timeoutSeconds: 10, retries: 1 },
                smbCsiDriver: { source: `${repository}/${SMB_CSI_DRIVER.chart}`, version: SMB_VERSION },
                // The add-ons' charts from the same registry (their public repositories otherwise), as Helmfile's copy has them.
                addons: Object.fromEntries(Object.entries(ADDON_SWITCHES).map(([k, v]) => [k, { ...v, repository }])),
            }));
            for (const [i, kubeconfig] of gpus.entries())
                await cli.run(["config", "set", "--secret", "--path", `computePlaneKubeconfigs.gpu-${i + 1}`, kubeconfig]);
            // As a user adds clusters: the stack file's computePlanes list.
            const doc = parseYaml(fs.readFileSync(stackFile, "utf8")) as { config: Record<string, unknown> };
            doc.config[`${PROJECT}:computePlanes`] = planes;
            fs.writeFileSync(stackFile, toYaml(doc));
            return timed(() => up(cli));
        }),
    );
}

/**
 * A copy of the bundle's stacks where Helmfile runs (NVIDIA's own stack tests copy them too), its
 * local charts swapped for the same fixtures, and every stack's `environments/bench.yaml`.
 */
function bundleCopy(setup: Setup, work: string): string {
    const stacks = path.join(work, "stacks");
    fs.cpSync(path.join(setup.parity.checkout, "deploy", "stacks"), stacks, { recursive: true });
    for (const [stack, chart] of [
        ["observability", "nvcf-otel-collector"],
        ["observability", "nvcf-default-monitors"],
        ["nvcf-compute-plane", "nvcf-cluster-topology"],
    ]) {
        const dir = path.join(stacks, stack, "charts", chart);
        fs.rmSync(dir, { recursive: true, force: true });
        fs.cpSync(path.join(setup.charts, chart), dir, { recursive: true });
    }
    for (const stack of fs.readdirSync(stacks)) {
        const dir = path.join(stacks, stack, "environments");
        if (fs.existsSync(dir)) fs.writeFileSync(path.join(dir, "bench.yaml"), "{}\n");
    }
    return stacks;
}

/** `helmfile --sequential-helmfiles sync` over one stack's helmfile.d, as NVIDIA's Makefiles run it. */
function helmfile(setup: Setup, stackDir: string, kubeconfig: string, work: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
    const kubeconfigFile = path.join(work, `kubeconfig-${crypto.randomUUID()}`);
    fs.writeFileSync(kubeconfigFile, kubeconfig, { mode: 0o600 });
    const args = ["--helm-binary", setup.parity.helm, "--file", path.join(stackDir, "helmfile.d"), "--environment", "default"];
    return run(setup.parity.helmfile, [...args, "--sequential-helmfiles", "sync"], {
        env: { ...setup.helmEnv, HELMFILE_ENV: "bench", KUBECONFIG: kubeconfigFile, HELMFILE_CACHE_HOME: path.join(work, "cache"), ...env },
    });
}

/** NVIDIA's Helmfile syncing the bundle's self-managed stack with the dev stack's environment. */
async function helmfileSync(setup: Setup, kubeconfig: string): Promise<number> {
    const work = fs.mkdtempSync(path.join(setup.work, "helmfile-"));
    const stack = path.join(bundleCopy(setup, work), "self-managed");
    fs.writeFileSync(path.join(stack, "environments", "bench.yaml"), JSON.stringify(setup.environment, null, 2));
    fs.mkdirSync(path.join(stack, "secrets"), { recursive: true });
    fs.writeFileSync(path.join(stack, "secrets", "bench-secrets.yaml"), JSON.stringify(bundleSecrets(), null, 2));
    return timed(() => helmfile(setup, stack, kubeconfig, work));
}

/**
 * GPU clusters installed one after another as NVIDIA's compute-plane Makefile does
 * (`make register-cluster`, then `make install`: Helmfile over `deploy/stacks/nvcf-compute-plane`),
 * every add-on on, with what the program does beside it and NVIDIA's documents leave to the user
 * (the SMB CSI driver with Helm, the runbook's inotify DaemonSet), so both sides do the same work.
 * Its add-on repositories are literal public ones: the copy points them at the registry, as its
 * own `nvca-operator` repository is. nvcf-cli is not built here: the registration makes the
 * requests the program's registration makes (the cluster's issuer and JWKS, an admin token, the
 * register call) to the same ICMS stand-in, and writes the values file `register-cluster` leaves.
 */
async function helmfileOneByOne(setup: Setup, kubeconfigs: readonly string[], icmsUrl: string): Promise<number> {
    const work = fs.mkdtempSync(path.join(setup.work, "helmfile-fleet-"));
    const stack = path.join(bundleCopy(setup, work), "nvcf-compute-plane");
    const dependencies = path.join(stack, "helmfile.d", "01-dependencies.yaml.gotmpl");
    const registry = "url: {{ .Values.global.helm.sources.registry }}/{{ .Values.global.helm.sources.repository }}";
    const text = fs.readFileSync(dependencies, "utf8");
    const pointed = text
        .replace(/url: ghcr\.io\/kai-scheduler\/kai-scheduler/, registry)
        .replace(/url: ghcr\.io\/ai-dynamo\/grove/, registry)
        .replace(/url: https:\/\/helm\.ngc\.nvidia\.com\/nvidia\/ai-dynamo\n/, `${registry}\n    oci: true\n`);
    if ((pointed.match(/global\.helm\.sources\.registry/g) ?? []).length !== 3)
        throw new Error(`${dependencies}: not the repositories expected`);
    fs.writeFileSync(dependencies, pointed);
    const sources = (setup.environment.global as Plain).helm as Plain;
    const environment = {
        global: { helm: sources, image: (setup.environment.global as Plain).image },
        addons: Object.fromEntries(Object.keys(ADDON_SWITCHES).map((k) => [k, { enabled: true }])),
    };
    fs.writeFileSync(path.join(stack, "environments", "bench.yaml"), JSON.stringify(environment, null, 2));
    const out = path.join(work, "out");
    fs.mkdirSync(out);
    let total = 0;
    const endpoint = { url: icmsUrl, timeoutMs: 10_000, retries: 1 };
    for (const [i, kubeconfig] of kubeconfigs.entries()) {
        const name = `gpu-${i + 1}`;
        total += await timed(async () => {
            const identity = await discoverClusterIdentity({ kubeconfig }, endpoint);
            const ids = await registerCluster(endpoint, await mintAdminToken(endpoint), {
                clusterName: name,
                ncaId: "nvcf-default",
                region: "us-west-1",
                cloudProvider: "ON-PREM",
                jwks: identity.jwks,
                oidcIssuer: identity.issuer,
            });
            fs.writeFileSync(
                path.join(out, `${name}-register-values.yaml`),
                toYaml({
                    clusterID: ids.clusterId,
                    clusterGroupID: ids.clusterGroupId,
                    ncaID: "nvcf-default",
                    region: "us-west-1",
                    selfManaged: {
                        identitySource: "psat",
                        icmsServiceURL: "http://sis.nvcf.test",
                        revalServiceURL: "http://reval.nvcf.test",
                    },
                }),
            );
            await helmfile(setup, stack, kubeconfig, work, { CLUSTER_NAME: name, NCA_ID: "nvcf-default", OUTPUT_DIR: out });
            await smbDriverByHand(setup, kubeconfig, work);
            await inotifyTunerByHand(kubeconfig);
        });
    }
    return total;
}

/** The SMB CSI driver as a user adds it beside NVIDIA's stack: Helm, waiting for it, from the same registry and version as the program. */
async function smbDriverByHand(setup: Setup, kubeconfig: string, work: string): Promise<void> {
    const kubeconfigFile = path.join(work, `kubeconfig-${crypto.randomUUID()}`);
    fs.writeFileSync(kubeconfigFile, kubeconfig, { mode: 0o600 });
    const chart = `oci://${setup.registry.host}/${REPOSITORY}/${SMB_CSI_DRIVER.chart}`;
    await run(
        setup.parity.helm,
        ["upgrade", "--install", SMB_CSI_DRIVER.name, chart, "--version", SMB_VERSION, "--namespace", "kube-system", "--wait"],
        { env: { ...setup.helmEnv, KUBECONFIG: kubeconfigFile } },
    );
}

/** The runbook's inotify DaemonSet, applied and waited for as its `kubectl rollout status` does. */
async function inotifyTunerByHand(kubeconfig: string): Promise<void> {
    const kube = new Kube(kubeconfig);
    const manifest = inotifyTunerDaemonSet({ initImage: "busybox:1.36", pauseImage: "registry.k8s.io/pause:3.9" });
    const path_ = `/apis/apps/v1/namespaces/${manifest.metadata.namespace}/daemonsets`;
    const res = await kube.request("POST", path_, manifest);
    if (res.status !== 201) throw new Error(`the inotify DaemonSet: ${res.status} ${res.text.slice(0, 300)}`);
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
        const ds = (await kube.request("GET", `${path_}/${manifest.metadata.name}`)).body as {
            metadata: { generation: number };
            status?: { observedGeneration?: number; desiredNumberScheduled?: number; numberReady?: number };
        };
        if ((ds.status?.observedGeneration ?? 0) >= ds.metadata.generation && ds.status?.numberReady === ds.status?.desiredNumberScheduled)
            return;
    }
    throw new Error("the inotify DaemonSet did not roll out in 60 s");
}

/** Every chart packaged and pushed to the registry, as a chart repository holds them. */
async function pushCharts(setup: Setup, names: readonly string[]): Promise<void> {
    const out = path.join(setup.work, "packages");
    fs.mkdirSync(out);
    for (const name of names) await run(setup.parity.helm, ["package", path.join(setup.charts, name), "-d", out], { env: setup.helmEnv });
    for (const tgz of fs.readdirSync(out))
        await run(setup.parity.helm, ["push", path.join(out, tgz), `oci://${setup.registry.host}/${REPOSITORY}`], { env: setup.helmEnv });
}

/** The dev stack's releases' longest chain, each weighted by its delay and hooks: the floor of `pulumi up`. */
async function weightedChain(): Promise<{ seconds: number; chain: string[] }> {
    // Loaded here: the Pulumi SDK it loads would slow `--help` down.
    const { stackSettings } = await import("../../scripts/lib/stack-settings");
    const { controlPlane } = stackSettings(REPO, "dev").settings;
    const enabled = CATALOG.filter((e) => e.enabled(controlPlane));
    const weight = (name: string) => (READY_SECONDS[name] ?? 0) + hookSeconds(name);
    const chain = longestChain(releaseDependencies(enabled), weight);
    return { seconds: chain.reduce((sum, n) => sum + weight(n), 0), chain };
}

/**
 * A GPU cluster's longest weighted chain, the floor of a fleet's `pulumi up` (the clusters install
 * side by side): the add-ons' chain, or the SMB driver, then the NVCA operator, which waits for them.
 */
function fleetChain(): { seconds: number; chain: string[] } {
    const weight = (name: string) => (READY_SECONDS[name] ?? 0) + hookSeconds(name);
    const addons = longestChain(addonDependencies(ADDONS), weight);
    const before = [addons, [SMB_CSI_DRIVER.name]].reduce((a, b) =>
        b.reduce((t, n) => t + weight(n), 0) > a.reduce((t, n) => t + weight(n), 0) ? b : a,
    );
    const chain = [...before, NVCA_OPERATOR.name];
    return { seconds: chain.reduce((sum, n) => sum + weight(n), 0), chain };
}

function report(
    what: string,
    floorMs: number,
    pulumiMs: readonly number[],
    pulumiWay: string,
    helmfileMs: readonly number[],
    helmfileWay: string,
): void {
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    const side = (ms: readonly number[]) => {
        const { median, low, high } = summary(ms);
        return `median ${s(median)} (${s(low)}-${s(high)} over ${ms.length})`;
    };
    const p = summary(pulumiMs).median;
    const h = summary(helmfileMs).median;
    console.log(`${what}:`);
    console.log(`  ${pulumiWay}: ${side(pulumiMs)}; ${(p / floorMs).toFixed(2)}x its floor of ${s(floorMs)}`);
    console.log(`  ${helmfileWay}: ${side(helmfileMs)}`);
    console.log(`  ratio of the medians ${(p / h).toFixed(2)}`);
}

/** The benchmark, once install-bench-main.ts has read the command line. Exit 0 measured, 1 a tool missing or an install failed. */
export async function installBench({ scale, fleets, runs }: InstallBenchOptions): Promise<number> {
    const { tools, missing } = findTools();
    const found = findParityTools();
    const gaps = [
        ...(tools ? [] : [`${missing} (scripts/e2e/build-tools.sh)`]),
        ...(found.tools ? [] : [`${found.missing} (scripts/parity/build-tools.sh)`]),
        ...(found.tools && !found.tools.registry ? ["the registry (scripts/parity/build-tools.sh)"] : []),
    ];
    if (!tools || !found.tools?.registry || gaps.length > 0) {
        process.stderr.write(`bench:install: cannot run: ${gaps.join("; ")}\n`);
        return 1;
    }
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-bench-install-"));
    const registry = new OciRegistry(found.tools.registry, path.join(work, "registry"));
    try {
        await registry.start();
        // Every Helm of this run (the CLI's, the kubernetes provider's) trusts the registry's CA.
        process.env.SSL_CERT_FILE = registry.caFile;
        const helmEnv = {
            ...process.env,
            HELM_CACHE_HOME: path.join(work, "helm", "cache"),
            HELM_CONFIG_HOME: path.join(work, "helm", "config"),
            HELM_DATA_HOME: path.join(work, "helm", "data"),
        };
        const charts = path.join(work, "charts");
        const names = benchCharts(CHARTS, charts, HOOK_SECONDS);
        const devConfig = (parseYaml(fs.readFileSync(path.join(REPO, "Pulumi.dev.yaml"), "utf8")) as { config: Record<string, Plain> })
            .config;
        const environment = deepMerge(devConfig[`${PROJECT}:controlPlane`], {
            global: { helm: { sources: { registry: registry.host, repository: REPOSITORY } } },
            observability: { chartsPath: charts },
        });
        const setup: Setup = {
            tools,
            parity: { ...found.tools, registry: found.tools.registry },
            work,
            registry,
            charts,
            scale,
            devConfig,
            environment,
            helmEnv,
        };
        await pushCharts(setup, names);

        const floor = await weightedChain();
        console.log(
            `bench:install: delays divided by ${scale}; the program's longest weighted chain: ${(floor.seconds / scale).toFixed(1)} s`,
        );
        console.log(`  (${floor.chain.map((n) => `${n} ${((READY_SECONDS[n] + hookSeconds(n)) / scale).toFixed(1)} s`).join(" > ")})`);
        const fleetFloor = fleetChain();
        console.log(
            `  a GPU cluster's longest weighted chain: ${(fleetFloor.seconds / scale).toFixed(1)} s (${fleetFloor.chain.join(" > ")})`,
        );
        // The sides take turns, so a change in the machine's load falls on both.
        const pulumiMs: number[] = [];
        const helmfileMs: number[] = [];
        for (let i = 0; i < runs; i++) {
            pulumiMs.push(await onNewClusters(setup, 1, ([kubeconfig]) => withDevStack(setup, kubeconfig, (cli) => timed(() => up(cli)))));
            helmfileMs.push(await onNewClusters(setup, 1, ([kubeconfig]) => helmfileSync(setup, kubeconfig)));
        }
        const floorMs = (seconds: number) => (seconds * 1000) / scale;
        report(
            "one environment",
            floorMs(floor.seconds),
            pulumiMs,
            "pulumi up of the dev stack",
            helmfileMs,
            "helmfile --sequential-helmfiles sync",
        );
        for (const n of fleets) {
            const fleetMs: number[] = [];
            const oneByOneMs: number[] = [];
            for (let i = 0; i < runs; i++) {
                fleetMs.push(await onNewClusters(setup, n + 1, (kubeconfigs) => pulumiFleet(setup, kubeconfigs)));
                oneByOneMs.push(
                    await onNewClusters(setup, n, (kubeconfigs) => withIcms((icms) => helmfileOneByOne(setup, kubeconfigs, icms))),
                );
            }
            report(
                `${n} GPU cluster${n > 1 ? "s" : ""}`,
                floorMs(fleetFloor.seconds),
                fleetMs,
                "one pulumi up",
                oneByOneMs,
                "register, helmfile sync, SMB driver and inotify DaemonSet per cluster, one after another",
            );
        }
        return 0;
    } catch (e) {
        process.stderr.write(`bench:install: ${(e as Error).message}\n`);
        return 1;
    } finally {
        await registry.stop();
        if (process.env.BENCH_KEEP !== "1") fs.rmSync(work, { recursive: true, force: true });
    }
}
