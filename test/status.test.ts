/**
 * `npm run status`: the drift comparison over decoded release records, the table, the JSON and
 * the exit codes, which clusters are reached and which are not, and the command itself, spawned
 * against an in-process fake API server for a healthy and an unhealthy cluster.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { parse as parseYaml, stringify } from "yaml";
import type { CheckResult } from "../lib/health/checks";
import { GATEWAY_API_CRDS } from "../lib/contracts/gateway-api";
import { installedReleases, releaseDrift, type DesiredRelease, type InstalledRelease } from "../lib/health/helm-releases";
import type { Kube } from "../lib/kubernetes/client";
import { receiptData } from "../components/bundle/receipt";
import { statusCli } from "../scripts/status/cli";
import { TSX_NODE_ARGS } from "../scripts/lib/repo";
import { formatStatusJson, formatTable } from "../scripts/status/format";
import { exitCode, type StatusReport } from "../scripts/status/run";
import { stackSettings } from "../scripts/lib/stack-settings";
import { statusTargets, type StatusTarget } from "../scripts/status/targets";
import { inBackground, runToEnd, type Finished } from "./support/background";
import { FakeKubeApi } from "./support/fake-kube-api";
import { AGENT_STATUS } from "../lib/contracts/nvca";
import { OPENBAO_API } from "../lib/openbao/contract";
import { sealStatusAnswer } from "./support/openbao-answers";

const ROOT = path.resolve(__dirname, "..");

const want = (name: string, namespace: string, version: string): DesiredRelease => ({ name, namespace, chart: `chart-${name}`, version });
const have = (name: string, namespace: string, chartVersion: string, status = "deployed", revision = 1): InstalledRelease => ({
    name,
    namespace,
    revision,
    chart: `chart-${name}`,
    chartVersion,
    status,
    manifest: "",
    hooks: [],
});
const byName = (results: readonly CheckResult[]) => Object.fromEntries(results.map((r) => [r.name, r]));

describe("release drift", () => {
    test("a release at the stack's version and deployed passes; a leading v is no drift", () => {
        const r = releaseDrift(
            [want("api", "nvcf", "1.2.3"), want("kai", "kai", "v0.16.7")],
            [have("api", "nvcf", "1.2.3"), have("kai", "kai", "0.16.7")],
            ["nvcf"],
        );
        assert.deepEqual(
            r.map((x) => [x.name, x.ok]),
            [
                ["release api", true],
                ["release kai", true],
            ],
        );
        assert.equal(r[0].detail, "nvcf: chart-api 1.2.3, revision 1, deployed");
    });

    test("missing, in another namespace, another version, and not deployed each fail with a fix", () => {
        const r = byName(
            releaseDrift(
                [
                    want("gone", "nvcf", "1.0.0"),
                    want("moved", "nvcf", "1.0.0"),
                    want("old", "nvcf", "2.0.0"),
                    want("stuck", "nvcf", "1.0.0"),
                ],
                [
                    have("moved", "other", "1.0.0"),
                    have("old", "nvcf", "1.9.0", "deployed", 3),
                    have("stuck", "nvcf", "1.0.0", "pending-upgrade", 4),
                ],
                ["nvcf"],
            ),
        );
        assert.match(r["release gone"].detail, /^not installed in nvcf \(the stack wants chart-gone 1\.0\.0\)$/);
        assert.match(r["release moved"].detail, /installed in other, not in nvcf/);
        assert.equal(r["release old"].detail, "nvcf: chart version 1.9.0, the stack wants 2.0.0");
        assert.match(r["release old"].fix, /pulumi up/);
        assert.equal(r["release stuck"].detail, "nvcf: its revision 4 is pending-upgrade");
        assert.match(r["release stuck"].fix, /interrupted/);
        assert.ok(Object.values(r).every((x) => !x.ok));
        assert.equal(Object.keys(r).length, 4, "a declared release found elsewhere is not reported again as extra");
    });

    test("a version constraint is not compared; an undecodable record fails", () => {
        const r = byName(
            releaseDrift([want("a", "n", "^1.2"), want("b", "n", "1.0.0")], [have("a", "n", "1.9.0"), have("b", "n", "")], ["n"]),
        );
        assert.equal(r["release a"].ok, true);
        assert.equal(r["release b"].ok, false);
        assert.match(r["release b"].detail, /could not be decoded/);
    });

    test("a release the stack does not declare is drift in its namespaces only", () => {
        const r = releaseDrift([], [have("leftover", "nvcf", "0.1.0"), have("users-own", "kube-system", "1.0.0")], ["nvcf"]);
        assert.deepEqual(
            r.map((x) => [x.name, x.ok, x.detail]),
            [["release leftover", false, "nvcf: chart-leftover 0.1.0 is installed, but the stack does not declare it"]],
        );
    });

    test("the records are read from Helm's Secrets, newest revision first, other Secrets ignored", async () => {
        const api = new FakeKubeApi()
            .putRelease({ name: "api", namespace: "nvcf", revision: 1, chart: "helm-nvcf-api", version: "1.0.0", status: "superseded" })
            .putRelease({
                name: "api",
                namespace: "nvcf",
                revision: 2,
                chart: "helm-nvcf-api",
                version: "1.1.0",
                status: "deployed",
                hooks: [
                    {
                        name: "api-test",
                        kind: "Pod",
                        path: "helm-nvcf-api/templates/tests/test.yaml",
                        manifest: "kind: Pod",
                        events: ["test"],
                        last_run: { started_at: "", completed_at: "", phase: "" },
                        weight: -5,
                        delete_policies: ["hook-succeeded"],
                    },
                    {
                        name: "api-migrate",
                        kind: "Job",
                        path: "helm-nvcf-api/templates/migrate.yaml",
                        manifest: "kind: Job",
                        events: ["post-install"],
                    },
                ],
            })
            .put("/api/v1/namespaces/nvcf/secrets/other", {
                metadata: { name: "other", labels: { owner: "helm", name: "x" } },
                type: "Opaque",
            });
        const kube: Kube = {
            server: "fake",
            async request(method, p) {
                const [status, body] = api.answer(method, p, `Bearer ${api.token}`);
                return { status, body, text: JSON.stringify(body) };
            },
        };
        assert.deepEqual(await installedReleases(kube, ["nvcf"]), [
            {
                name: "api",
                namespace: "nvcf",
                revision: 2,
                chart: "helm-nvcf-api",
                chartVersion: "1.1.0",
                status: "deployed",
                manifest: "",
                hooks: [
                    {
                        name: "api-test",
                        kind: "Pod",
                        path: "helm-nvcf-api/templates/tests/test.yaml",
                        manifest: "kind: Pod",
                        events: ["test"],
                        weight: -5,
                        deletePolicies: ["hook-succeeded"],
                    },
                    {
                        name: "api-migrate",
                        kind: "Job",
                        path: "helm-nvcf-api/templates/migrate.yaml",
                        manifest: "kind: Job",
                        events: ["post-install"],
                        weight: 0,
                        deletePolicies: [],
                    },
                ],
            },
        ]);
    });
});

const report = (clusters: StatusReport["clusters"]): StatusReport => ({ stack: "dev", time: "2025-01-01T00:00:00.000Z", clusters });
const okCheck: CheckResult = { name: "kubernetes-version", ok: true, detail: "Kubernetes v1.31.2", fix: "" };
const failCheck: CheckResult = {
    name: "release api",
    ok: false,
    detail: "nvcf: chart version 1.0.0, the stack wants 1.1.0",
    fix: "pulumi up",
};

describe("the report", () => {
    test("exit codes: 0 all ok (a skipped cluster too), 1 a check failed, 2 a cluster unreachable or none checked", () => {
        const skipped = { cluster: "compute plane b", state: "skipped" as const, reason: "not checked: EKS", checks: [] };
        assert.equal(exitCode(report([{ cluster: "control plane", state: "checked", checks: [okCheck] }, skipped])), 0);
        assert.equal(exitCode(report([{ cluster: "control plane", state: "checked", checks: [okCheck, failCheck] }])), 1);
        assert.equal(exitCode(report([{ cluster: "control plane", state: "unreachable", reason: "down", checks: [] }])), 2);
        assert.equal(exitCode(report([skipped])), 2);
    });

    test("the table: a heading, aligned columns, a failure's fix below it, a skipped cluster's reason, a summary", () => {
        const text = formatTable(
            report([
                { cluster: "control plane", state: "checked", checks: [okCheck, failCheck] },
                { cluster: "compute plane gpu-b", state: "skipped", reason: "not checked: an EKS cluster", checks: [] },
            ]),
        );
        assert.equal(
            text,
            [
                "status of stack dev at 2025-01-01T00:00:00.000Z",
                "CLUSTER              CHECK               STATUS  DETAIL",
                "control plane        kubernetes-version  ok      Kubernetes v1.31.2",
                "control plane        release api         FAIL    nvcf: chart version 1.0.0, the stack wants 1.1.0",
                "                                                 fix: pulumi up",
                "compute plane gpu-b  -                   SKIP    not checked: an EKS cluster",
                "2 checks: 1 ok, 1 failed; 1 cluster not checked (exit 1)",
                "",
            ].join("\n"),
        );
    });

    test("a fix several rows share is printed once, under the last of them; another fix still under its row", () => {
        const reachedAlike = {
            name: "kubernetes-version",
            ok: false,
            detail: "the API server https://10.0.0.1 could not be reached",
            fix: "check the server",
        };
        const down = (cluster: string) => ({ cluster, state: "unreachable" as const, reason: reachedAlike.detail, checks: [reachedAlike] });
        const untested = (release: string): CheckResult => ({
            name: `helm test ${release}`,
            ok: false,
            inconclusive: true,
            detail: "revision 1 has not been tested",
            fix: "pulumi up runs it",
        });
        const text = formatTable(
            report([
                down("control plane"),
                down("compute plane gpu-a"),
                { cluster: "compute plane gpu-c", state: "checked", checks: [untested("nats"), failCheck, untested("api")] },
            ]),
        );
        // Between the heading and the summary.
        assert.deepEqual(text.split("\n").slice(2, -2), [
            "control plane        kubernetes-version  FAIL          the API server https://10.0.0.1 could not be reached",
            "compute plane gpu-a  kubernetes-version  FAIL          the API server https://10.0.0.1 could not be reached",
            "                                                       fix: check the server",
            "compute plane gpu-c  helm test nats      INCONCLUSIVE  revision 1 has not been tested",
            "                                                       fix: pulumi up runs it",
            "compute plane gpu-c  release api         FAIL          nvcf: chart version 1.0.0, the stack wants 1.1.0",
            "                                                       fix: pulumi up",
            "compute plane gpu-c  helm test api       INCONCLUSIVE  revision 1 has not been tested",
        ]);
    });

    test("the JSON: the stack, the time, ok, the exit code and each cluster's checks; one line per round under --watch", () => {
        const r = report([{ cluster: "control plane", state: "checked", checks: [okCheck] }]);
        const doc = JSON.parse(formatStatusJson(r, false));
        assert.deepEqual(doc, {
            stack: "dev",
            time: r.time,
            ok: true,
            exitCode: 0,
            clusters: [{ cluster: "control plane", state: "checked", checks: [okCheck] }],
        });
        assert.equal(formatStatusJson(r, true).split("\n").length, 2);
    });
});

/** A stack directory: the project's Pulumi.yaml and a stack file of the dev stack's config with two compute planes. */
function stackDir(extra: Record<string, unknown> = {}): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-status-test-"));
    fs.copyFileSync(path.join(ROOT, "Pulumi.yaml"), path.join(dir, "Pulumi.yaml"));
    const doc = parseYaml(fs.readFileSync(path.join(ROOT, "Pulumi.dev.yaml"), "utf8")) as { config: Record<string, unknown> };
    doc.config["nvcf-self-managed:computePlanes"] = [
        { clusterName: "gpu-a", cluster: { sameAsControlPlane: true } },
        { clusterName: "gpu-b", cluster: { eks: { name: "gpu-b", region: "us-west-2" } } },
    ];
    Object.assign(doc.config, extra);
    fs.writeFileSync(path.join(dir, "Pulumi.st.yaml"), stringify(doc));
    return dir;
}

describe("which clusters are reached", () => {
    test("a plane on the control plane's cluster shares its access; an EKS plane and a secret kubeconfig are not checked", () => {
        const dir = stackDir({ "nvcf-self-managed:kubeconfig": { secure: "v1:abc" } });
        try {
            const { settings, secretKeys } = stackSettings(dir, "st");
            assert.deepEqual(secretKeys, ["kubeconfig"]);
            const [cp, a, b] = statusTargets(settings, secretKeys, { planes: new Map() });
            assert.match(cp.skipped!, /stack secret kubeconfig, which status never decrypts; pass --kubeconfig <file>/);
            assert.equal(a.skipped, cp.skipped);
            assert.match(
                b.skipped!,
                /EKS cluster .*--kubeconfig-for gpu-b=<file>.*aws eks update-kubeconfig --name gpu-b --region us-west-2/,
            );
            const given = statusTargets(settings, secretKeys, {
                controlPlane: { file: "cp.yaml", text: "kc" },
                context: "admin",
                planes: new Map([["gpu-b", { file: "b.yaml", text: "kb" }]]),
            });
            assert.deepEqual(given[0].access, { kubeconfig: "kc", source: "cp.yaml", context: "admin" });
            assert.deepEqual(given[1].access, given[0].access);
            assert.deepEqual(given[2].access, { kubeconfig: "kb", source: "b.yaml" });
            assert.ok(given[2].releases.some((r) => r.name === "nvca-operator"));
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    test("computePlaneKubeconfigs: unread, any plane may be in it; read (upgrade), a plane with no other way in needs its entry", () => {
        const dir = stackDir({
            "nvcf-self-managed:computePlaneKubeconfigs": { secure: "v1:abc" },
            "nvcf-self-managed:computePlanes": [
                { clusterName: "gpu-a", cluster: { context: "gpu-a-admin" } },
                { clusterName: "gpu-b", cluster: {} },
            ],
        });
        try {
            const { settings, secretKeys } = stackSettings(dir, "st");
            const [, a, b] = statusTargets(settings, secretKeys, { planes: new Map() });
            assert.equal(
                a.skipped,
                "its kubeconfig may be in the stack secret computePlaneKubeconfigs, which status never decrypts; pass --kubeconfig-for gpu-a=<file>",
            );
            assert.match(b.skipped!, /may be in the stack secret computePlaneKubeconfigs.*--kubeconfig-for gpu-b=<file>/);
            // As upgrade calls it once it has read the secret and found no entry for either plane.
            const [, readA, readB] = statusTargets(settings, [], { planes: new Map() });
            assert.deepEqual(readA.access, { context: "gpu-a-admin" });
            assert.equal(readB.access, undefined);
            assert.equal(
                readB.skipped,
                "the stack secret computePlaneKubeconfigs has no entry for gpu-b; pass --kubeconfig-for gpu-b=<file>",
            );
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    test("--help exits 0; a missing --stack, a bad --watch and an unknown plane exit 2 with the usage", async () => {
        const run = async (...argv: string[]) => {
            let out = "";
            let err = "";
            const code = await statusCli(argv, { out: (t) => (out += t), err: (t) => (err += t) }, {});
            return { code, out, err };
        };
        assert.equal((await run("--help")).code, 0);
        const missing = await run();
        assert.equal(missing.code, 2);
        assert.match(missing.err, /^--stack is required\nusage: npm run --silent status/);
        assert.match((await run("--stack", "dev", "--watch", "0")).err, /--watch takes a whole number of seconds/);
        const unknown = await run("--stack", "dev", "--kubeconfig-for", "nope=/dev/null");
        assert.equal(unknown.code, 2);
        assert.match(unknown.err, /--kubeconfig-for names nope, which is no compute plane of the stack/);
    });

    test("a kubeconfig that cannot be used: the control plane and the plane on its cluster fail alike, their fix printed once", async () => {
        const dir = stackDir();
        try {
            const kubeconfig = path.join(dir, "no-server.yaml");
            fs.writeFileSync(kubeconfig, "apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n");
            const res = await statusHere("--stack", "st", "--dir", dir, "--kubeconfig", kubeconfig);
            assert.equal(res.code, 2, res.stderr);
            for (const cluster of ["control plane", "compute plane gpu-a"]) {
                const row = new RegExp(
                    `\\n${cluster} +kubeconfig +FAIL +its kubeconfig could not be used: the kubeconfig names no cluster server`,
                );
                assert.match(res.stdout, row);
            }
            assert.deepEqual(
                res.stdout
                    .split("\n")
                    .filter((l) => /^ +fix: /.test(l))
                    .map((l) => l.trim()),
                ["fix: check --kubeconfig and --context"],
                res.stdout,
            );
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});

/** Everything the checks and the drift read, healthy: what a working install of the targets looks like. */
function healthyCluster(api: FakeKubeApi, targets: readonly StatusTarget[]): void {
    for (const crd of GATEWAY_API_CRDS)
        api.put(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}.gateway.networking.k8s.io`, {});
    for (const t of targets.filter((x) => x.access)) {
        for (const gw of t.preflight.gatewayApi?.gateways ?? []) {
            api.put(`/apis/gateway.networking.k8s.io/v1/namespaces/${gw.namespace}/gateways/${gw.name}`, {
                spec: { listeners: gw.listeners },
            });
        }
        // The receipt pulumi up writes last, naming the bundle release the stack selects.
        if (t.bundleRelease)
            api.put("/api/v1/namespaces/nvcf/configmaps/nvcf-upgrade-receipt", {
                data: receiptData({ bundleRelease: t.bundleRelease, controlPlane: {}, computePlanes: {} }),
            });
        const boot = t.health?.accountBootstrap;
        if (boot) api.put(`/apis/batch/v1/namespaces/${boot.namespace}/jobs/${boot.job}`, { status: { succeeded: 1 } });
        const bao = t.health?.openbao;
        if (bao)
            api.put(
                `/api/v1/namespaces/${bao.namespace}/pods/${bao.pod}:${bao.port}/proxy/v1/${OPENBAO_API.sealStatus}`,
                sealStatusAnswer(),
            );
        for (const ns of t.health?.routes?.namespaces ?? []) {
            api.put(`/apis/gateway.networking.k8s.io/v1/namespaces/${ns}/httproutes/api`, {
                metadata: { name: "api" },
                status: { parents: [{ parentRef: { name: "nvcf-gateway" }, conditions: [{ type: "Accepted", status: "True" }] }] },
            });
        }
        const backend = t.health?.nvcfBackend;
        if (backend) {
            api.put(`/apis/nvcf.nvidia.io/v1/namespaces/${backend.namespace}/nvcfbackends/${backend.name}`, {
                status: { agentStatus: AGENT_STATUS.healthy },
            });
            for (const ns of [backend.namespace, backend.agentNamespace]) {
                api.put(`/api/v1/namespaces/${ns}/pods/p`, {
                    metadata: { name: "p" },
                    status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
                });
            }
        }
        for (const r of t.releases) api.putRelease({ ...r, revision: 1, status: "deployed" });
    }
    api.put("/apis/storage.k8s.io/v1/storageclasses/standard", {
        metadata: { name: "standard", annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
    });
    api.put("/api/v1/nodes/gpu-node", { metadata: { name: "gpu-node" }, status: { allocatable: { "nvidia.com/gpu": "8" } } });
}

/** The command as `npm run status` runs it, in a child process (the fake API server answers from this one). */
function status(...argv: string[]): Promise<Finished> {
    return runToEnd(process.execPath, [...TSX_NODE_ARGS, "scripts/status/main.ts", ...argv], {
        cwd: ROOT,
        env: { ...process.env, KUBECONFIG: "/nonexistent" },
    });
}

/** The same command in this process: its own module, without paying a process start again. */
async function statusHere(...argv: string[]): Promise<Finished> {
    let stdout = "";
    let stderr = "";
    const code = await statusCli(argv, { out: (t) => (stdout += t), err: (t) => (stderr += t) }, { KUBECONFIG: "/nonexistent" });
    return { code, stdout, stderr };
}

/**
 * A healthy fake cluster, and the command run against it in a child process, started when this
 * file loads (see support/background.ts). The tests after the healthy one change the cluster:
 * they run once that run is over.
 */
const healthyRun = inBackground(async () => {
    const api = new FakeKubeApi();
    await api.start();
    const dir = stackDir();
    const kubeconfig = path.join(dir, "kubeconfig.yaml");
    fs.writeFileSync(kubeconfig, api.kubeconfig());
    const { settings, secretKeys } = stackSettings(dir, "st");
    const targets = statusTargets(settings, secretKeys, { controlPlane: { file: kubeconfig, text: "" }, planes: new Map() });
    healthyCluster(api, targets);
    const res = await status("--stack", "st", "--dir", dir, "--kubeconfig", kubeconfig);
    return { api, dir, kubeconfig, targets, res };
});
// At the top level, so that it runs even when a filter leaves the tests below out.
after(async () => {
    const { api, dir } = await healthyRun;
    await api.stop();
    fs.rmSync(dir, { recursive: true, force: true });
});

describe("the command against a fake API server", { concurrency: false }, () => {
    let api: FakeKubeApi;
    let dir: string;
    let kubeconfig: string;
    let targets: StatusTarget[];

    before(async () => {
        ({ api, dir, kubeconfig, targets } = await healthyRun);
    });

    test("healthy: every check ok, the EKS plane not checked, exit 0; only GETs and the access review", async () => {
        const { res } = await healthyRun;
        assert.equal(res.code, 0, res.stdout + res.stderr);
        const lines = res.stdout.split("\n");
        assert.match(lines[0], /^status of stack st at \d{4}-\d\d-\d\dT/);
        assert.match(lines[1], /^CLUSTER +CHECK +STATUS +DETAIL$/);
        for (const row of [
            /^control plane +kubernetes-version +ok +Kubernetes v1\.31\.2 at http:\/\/127\.0\.0\.1:\d+$/,
            /^control plane +openbao +ok +OpenBao is initialised and unsealed$/,
            /^control plane +bundle-release +ok +runs bundle release 0\.8\.0 \(receipt nvcf\/nvcf-upgrade-receipt\)$/,
            /^control plane +release api +ok +nvcf: helm-nvcf-api 1\.25\.1, revision 1, deployed$/,
            /^compute plane gpu-a +nvcfbackend +ok +the NVCFBackend gpu-a is healthy$/,
            /^compute plane gpu-a +release nvca-operator +ok +nvca-operator: helm-nvca-operator [\d.]+, revision 1, deployed$/,
            /^compute plane gpu-b +- +SKIP +not checked: an EKS cluster/,
        ]) {
            assert.ok(
                lines.some((l) => row.test(l)),
                `no line ${row} in\n${res.stdout}`,
            );
        }
        assert.ok(!lines.some((l) => / FAIL /.test(l)), res.stdout);
        assert.match(lines.at(-2)!, /^\d+ checks: (\d+) ok, 0 failed; 1 cluster not checked \(exit 0\)$/);
        assert.ok(
            api.requests.every((r) => r.startsWith("GET ") || r.includes("selfsubjectaccessreviews")),
            "status only reads",
        );
    });

    test("unhealthy: a version drift, a sealed OpenBao and a leftover release fail with their fix, exit 1; --json", async () => {
        api.putRelease({ name: "api", namespace: "nvcf", revision: 2, chart: "helm-nvcf-api", version: "1.24.0", status: "deployed" });
        api.putRelease({ name: "leftover", namespace: "nvcf", revision: 1, chart: "old-chart", version: "0.1.0", status: "deployed" });
        api.put("/api/v1/namespaces/nvcf/configmaps/nvcf-upgrade-receipt", {
            data: receiptData({ bundleRelease: "0.7.0", controlPlane: {}, computePlanes: {} }),
        });
        const bao = targets[0].health!.openbao!;
        api.put(
            `/api/v1/namespaces/${bao.namespace}/pods/${bao.pod}:${bao.port}/proxy/v1/${OPENBAO_API.sealStatus}`,
            sealStatusAnswer({ sealed: true }),
        );
        const table = await statusHere("--stack", "st", "--dir", dir, "--kubeconfig", kubeconfig);
        assert.equal(table.code, 1, table.stderr);
        assert.match(
            table.stdout,
            /\ncontrol plane +release api +FAIL +nvcf: chart version 1\.24\.0, the stack wants 1\.25\.1\n +fix: pulumi up/,
        );
        assert.match(table.stdout, /\ncontrol plane +openbao +FAIL +OpenBao is sealed\n +fix: unseal it/);
        assert.match(
            table.stdout,
            /\ncontrol plane +release leftover +FAIL +nvcf: old-chart 0\.1\.0 is installed, but the stack does not declare it/,
        );

        const json = await statusHere("--stack", "st", "--dir", dir, "--kubeconfig", kubeconfig, "--json");
        assert.equal(json.code, 1);
        const doc = JSON.parse(json.stdout) as {
            stack: string;
            ok: boolean;
            exitCode: number;
            clusters: { cluster: string; state: string; reason?: string; checks: CheckResult[] }[];
        };
        assert.equal(doc.stack, "st");
        assert.equal(doc.ok, false);
        assert.equal(doc.exitCode, 1);
        assert.deepEqual(
            doc.clusters.map((c) => [c.cluster, c.state]),
            [
                ["control plane", "checked"],
                ["compute plane gpu-a", "checked"],
                ["compute plane gpu-b", "skipped"],
            ],
        );
        const failed = doc.clusters.flatMap((c) => c.checks.filter((r) => !r.ok).map((r) => r.name));
        assert.deepEqual(failed.sort(), ["bundle-release", "openbao", "release api", "release leftover"]);
        assert.match(
            table.stdout,
            /\ncontrol plane +bundle-release +FAIL +runs bundle release 0\.7\.0 \(receipt nvcf\/nvcf-upgrade-receipt\); the stack selects 0\.8\.0\n +fix: npm run upgrade/,
        );
        assert.ok(doc.clusters[0].checks.every((r) => Object.keys(r).join() === "name,ok,detail,fix"));
    });

    test("a cluster that does not answer exits 2", async () => {
        const down = path.join(dir, "down.yaml");
        fs.writeFileSync(down, api.kubeconfig().replace(/server: .*/, "server: http://127.0.0.1:1"));
        const res = await statusHere("--stack", "st", "--dir", dir, "--kubeconfig", down);
        assert.equal(res.code, 2, res.stdout + res.stderr);
        assert.match(res.stdout, /control plane +kubernetes-version +FAIL +the API server http:\/\/127\.0\.0\.1:1 could not be reached/);
        assert.match(res.stdout, /2 clusters unreachable; 1 cluster not checked \(exit 2\)\n$/);
    });
});
