import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { FakeKubeApi, inProcessKube } from "./support/fake-kube-api";
import { FakeControlPlane } from "./support/fake-icms";
import type { Kube } from "../lib/kubernetes/client";
import { hookOutcome, runReleaseTests, testHooks, type HookRun } from "../lib/smoke/helm-tests";
import { installedReleases, type HelmHook } from "../lib/health/helm-releases";
import { platformSmoke, smokePlan, SMOKE_FUNCTION, type PlatformTarget } from "../lib/smoke/platform";
import { devRaw, parse } from "./support/raw-config";
import { parseRecord, readRecord, recordData, SMOKE_RECORD } from "../lib/smoke/record";
import { smokeStatus } from "../lib/smoke/status";
import { SmokeCheckProvider, type SmokeCheckInputs } from "../components/providers/smoke-check";
import { HELM_HOOK } from "../lib/contracts/helm";
import { FUNCTIONS, functionVersionPath } from "../lib/nvcf-api/contract";

/** A test hook as the invocation service's chart renders it at NVIDIA/nvcf@fadc0f81 (templates/tests/test-connection.yaml). */
const podHook = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    kind: "Pod",
    path: `helm-nvcf-invocation-service/templates/tests/${name}.yaml`,
    manifest: [
        "apiVersion: v1",
        "kind: Pod",
        "metadata:",
        `  name: "${name}"`,
        "  namespace: nvcf",
        "  annotations:",
        '    "helm.sh/hook": test',
        "spec:",
        "  containers:",
        "    - name: wget",
        "      image: busybox",
        "      command: ['wget']",
        "      args: ['invocation-service:8080']",
        "  restartPolicy: Never",
    ].join("\n"),
    events: [HELM_HOOK.testEvent],
    ...extra,
});

const hook = (name: string, weight = 0, events = ["test"]): HelmHook => ({
    name,
    kind: "Pod",
    path: "",
    manifest: "",
    events,
    weight,
    deletePolicies: [],
});

/**
 * The API server for a test run: GETs from the fake's objects (discovery, Helm's records), and the
 * writes a test run makes. `kubelet` decides how each created Pod ends, after `after` looks.
 */
function cluster(outcomes: Record<string, "Succeeded" | "Failed">, after = 1) {
    const fake = new FakeKubeApi();
    fake.put("/api/v1", { kind: "APIResourceList", groupVersion: "v1", resources: [{ name: "pods", kind: "Pod", namespaced: true }] });
    const reads = new Map<string, number>();
    const writes: string[] = [];
    const logs: Record<string, string> = {};
    const base = inProcessKube(fake);
    const kube: Kube = {
        server: "fake",
        async request(method, path, body) {
            const bare = path.split("?")[0];
            if (method === "POST") {
                writes.push(`POST ${bare}`);
                const obj = body as { metadata: { name: string } };
                const at = `${bare}/${obj.metadata.name}`;
                if (fake.objects.has(at)) return { status: 409, body: {}, text: "AlreadyExists" };
                fake.objects.set(at, { ...obj, status: { phase: "Pending" } });
                return { status: 201, body: obj, text: "" };
            }
            if (method === "DELETE") {
                writes.push(`DELETE ${bare}`);
                const had = fake.objects.delete(bare);
                return { status: had ? 200 : 404, body: {}, text: "" };
            }
            if (method === "PATCH") {
                writes.push(`PATCH ${bare}`);
                fake.objects.set(bare, body);
                return { status: 200, body, text: "" };
            }
            const log = /^\/api\/v1\/namespaces\/[^/]+\/pods\/([^/]+)\/log$/.exec(bare);
            if (log)
                return logs[log[1]] !== undefined
                    ? { status: 200, body: undefined, text: logs[log[1]] }
                    : { status: 404, body: {}, text: "" };
            const pod = /^\/api\/v1\/namespaces\/[^/]+\/pods\/([^/]+)$/.exec(bare);
            if (pod && fake.objects.has(bare)) {
                const n = (reads.get(bare) ?? 0) + 1;
                reads.set(bare, n);
                const name = pod[1];
                if (n >= after && outcomes[name]) {
                    const o = fake.objects.get(bare) as Record<string, unknown>;
                    const exitCode = outcomes[name] === "Succeeded" ? 0 : 1;
                    fake.objects.set(bare, {
                        ...o,
                        status: {
                            phase: outcomes[name],
                            containerStatuses: [
                                { name: "wget", state: { terminated: { exitCode, reason: exitCode ? "Error" : "Completed" } } },
                            ],
                        },
                    });
                }
            }
            return base.request(method, path, body);
        },
    };
    return { fake, kube, writes, logs };
}

const options = { timeoutSeconds: 5, pollMs: 1, say: () => {} };

/** The invocation service's release record, with these hooks. */
const invocationService = (fake: FakeKubeApi, hooks: readonly Record<string, unknown>[], revision: number) =>
    fake.putRelease({
        name: "invocation-service",
        namespace: "nvcf",
        revision,
        chart: "helm-nvcf-invocation-service",
        version: "1.5.6",
        status: "deployed",
        hooks,
    });

describe("helm test hooks", () => {
    it("runs only the test hooks, by weight, then by name, as Helm does", () => {
        const ordered = testHooks({ hooks: [hook("b"), hook("a", 1), hook("c", -1), hook("migrate", 0, ["post-install"]), hook("a0")] });
        assert.deepEqual(
            ordered.map((h) => h.name),
            ["c", "a0", "b", "a"],
        );
    });

    it("reads a Pod's and a Job's outcome from their status", () => {
        assert.deepEqual(hookOutcome("Pod", { status: { phase: "Succeeded" } }), { done: true, ok: true, why: "Succeeded" });
        const failed = hookOutcome("Pod", {
            status: { phase: "Failed", containerStatuses: [{ name: "wget", state: { terminated: { exitCode: 1, reason: "Error" } } }] },
        });
        assert.deepEqual(failed, { done: true, ok: false, why: "Failed: container wget exited 1 (Error)" });
        const pulling = hookOutcome("Pod", {
            status: {
                phase: "Pending",
                containerStatuses: [{ name: "wget", state: { waiting: { reason: "ImagePullBackOff", message: "busybox" } } }],
            },
        });
        assert.deepEqual(pulling, { done: false, waiting: "container wget waits: ImagePullBackOff (busybox)" });
        assert.equal(hookOutcome("Job", { status: { conditions: [{ type: "Complete", status: "True" }] } }).done, true);
        assert.deepEqual(
            hookOutcome("Job", { status: { conditions: [{ type: "Failed", status: "True", reason: "BackoffLimitExceeded" }] } }),
            {
                done: true,
                ok: false,
                why: "Failed (BackoffLimitExceeded)",
            },
        );
        assert.deepEqual(hookOutcome("Job", { status: { active: 1 } }), { done: false, waiting: "active 1, failed 0" });
    });

    it("deletes the last run's Pod, creates it, and waits until it succeeds; the Pod stays (before-hook-creation)", async () => {
        const { fake, kube, writes } = cluster({ "invocation-service-test-connection": "Succeeded" }, 3);
        invocationService(fake, [podHook("invocation-service-test-connection")], 2);
        const pod = "/api/v1/namespaces/nvcf/pods/invocation-service-test-connection";
        fake.objects.set(pod, { metadata: { name: "invocation-service-test-connection" }, status: { phase: "Succeeded" } });
        const [release] = await installedReleases(kube, ["nvcf"]);
        const said: string[] = [];
        const runs = await runReleaseTests(kube, release, { ...options, say: (l) => said.push(l) });
        assert.deepEqual(writes, [`DELETE ${pod}`, "POST /api/v1/namespaces/nvcf/pods"]);
        assert.equal(runs.length, 1);
        assert.equal(runs[0].phase, "Succeeded");
        assert.equal(runs[0].revision, 2);
        assert.equal(runs[0].path, pod);
        assert.match(runs[0].detail, /^passed in \d+ s$/);
        assert.ok(fake.objects.has(pod), "the Pod stays to be read");
        assert.match(said.join("\n"), /helm test invocation-service: Pod nvcf\/invocation-service-test-connection Succeeded/);
    });

    it("a failed Pod ends the release's run with the end of its log; its later hooks do not run", async () => {
        const { fake, kube, writes, logs } = cluster({ "t-1": "Failed", "t-2": "Succeeded" });
        logs["t-1"] = "wget: can't connect to remote host: Connection refused";
        invocationService(fake, [podHook("t-2", { weight: 1 }), podHook("t-1", { delete_policies: [HELM_HOOK.hookFailed] })], 1);
        const [release] = await installedReleases(kube, ["nvcf"]);
        const runs = await runReleaseTests(kube, release, options);
        assert.deepEqual(
            runs.map((r) => [r.hook, r.phase]),
            [["t-1", "Failed"]],
        );
        assert.match(runs[0].detail, /^Failed: container wget exited 1 \(Error\); log of t-1: wget: can't connect/);
        // hook-failed: deleted after the failure, and no before-hook-creation delete since it names a policy.
        assert.deepEqual(writes, ["POST /api/v1/namespaces/nvcf/pods", "DELETE /api/v1/namespaces/nvcf/pods/t-1"]);
    });

    it("a Pod that never finishes fails at the timeout, naming what it waits for", async () => {
        const { fake, kube } = cluster({});
        invocationService(fake, [podHook("t")], 1);
        const [release] = await installedReleases(kube, ["nvcf"]);
        const runs = await runReleaseTests(kube, release, { ...options, timeoutSeconds: 0 });
        assert.equal(runs[0].phase, "Failed");
        assert.match(
            runs[0].detail,
            /^not done after 0 s \(phase Pending\); its log could not be read \(HTTP 404\): kubectl -n nvcf logs t$/,
        );
    });
});

describe("the platform smoke check", () => {
    const fake = new FakeControlPlane();
    let target: PlatformTarget;
    before(async () => {
        await fake.start();
        target = {
            apiUrl: fake.icmsUrl,
            apiKeysUrl: fake.icmsUrl,
            functionImage: "nvcr.io/example/echo:1.0",
            timeoutSeconds: 5,
            retries: 0,
        };
    });
    after(() => fake.stop());

    it("mints a token, reads the API, creates a function and deletes it", async () => {
        const said: string[] = [];
        const run = await platformSmoke(target, undefined, (l) => said.push(l), 0);
        assert.deepEqual(
            run.steps.map((s) => [s.step, s.ok]),
            [
                ["admin token", true],
                ["API through the Gateway", true],
                ["function created", true],
                ["function deleted", true],
            ],
        );
        assert.equal(run.ok, true);
        assert.match(run.steps[2].detail, new RegExp(`nvcr.io/example/echo:1.0\\), ${FUNCTIONS.createdStatus}$`));
        assert.equal(fake.functions.size, 0, "nothing left in the account");
        const [id, versionId] = run.steps[2].detail.split(" ")[0].split("/");
        assert.ok(
            fake.requests.some((r) => r.method === "DELETE" && r.path === functionVersionPath(id, versionId)),
            "the version it created",
        );
        const created = fake.requests.find((r) => r.method === "POST" && r.path === FUNCTIONS.path)!;
        assert.equal(JSON.parse(created.body).name, SMOKE_FUNCTION);
        const token = created.authorization!.replace("Bearer ", "");
        assert.ok(!JSON.stringify(run).includes(token) && !said.join("\n").includes(token), "the token is never written");
    });

    it("deletes a function an earlier run left, before creating its own", async () => {
        fake.functions.set("v-old", {
            id: "f-old",
            versionId: "v-old",
            name: SMOKE_FUNCTION,
            status: "INACTIVE",
            containerImage: "nvcr.io/x/y:1",
        });
        fake.functions.set("v-user", {
            id: "f-user",
            versionId: "v-user",
            name: "users-own",
            status: "ACTIVE",
            containerImage: "nvcr.io/x/y:1",
        });
        fake.validTokens.add("configured-token");
        const second = await platformSmoke(target, "configured-token", () => {}, 0);
        assert.equal(second.ok, true);
        assert.deepEqual(second.steps[0], { step: "admin token", ok: true, detail: "nvcfAdminToken from the stack" });
        assert.ok(second.steps.some((s) => s.step === "earlier smoke function removed" && s.detail.startsWith("f-old/v-old")));
        assert.deepEqual([...fake.functions.keys()], ["v-user"], "the user's function stays");
        fake.functions.clear();
    });

    it("a refused token, an image the account cannot read: the step fails with the API's answer and what to change", async () => {
        const refused = await platformSmoke(target, "unknown-token", () => {}, 0);
        assert.equal(refused.ok, false);
        assert.deepEqual(
            refused.steps.map((s) => s.step),
            ["admin token", "API through the Gateway"],
        );
        assert.match(refused.steps[1].detail, /answered HTTP 401 \(the token needs the list_functions scope/);

        const image = await platformSmoke({ ...target, functionImage: "registry.example.com/echo:1" }, undefined, () => {}, 0);
        const step = image.steps.find((s) => s.step === "function created")!;
        assert.equal(step.ok, false);
        assert.match(
            step.detail,
            /HTTP 400: Unsupported registry hostname registry\.example\.com for registry type CONTAINER \(checks\.smoke\.functionImage must be an image/,
        );
        assert.equal(fake.functions.size, 0);
    });

    it("an API that does not answer is a failed step, not an exception", async () => {
        const run = await platformSmoke({ ...target, apiUrl: "http://127.0.0.1:9", timeoutSeconds: 1 }, "t", () => {}, 0);
        assert.equal(run.ok, false);
        assert.equal(run.steps[1].step, "API through the Gateway");
        assert.match(run.steps[1].detail, /127\.0\.0\.1:9/);
    });

    it("checks.smoke as declared: the routes' hostnames over http by default (as registration reaches them); nothing with both parts off", () => {
        const plan = (smoke: Record<string, unknown>) =>
            smokePlan("nvcf.test", parse(devRaw({ values: { checks: { smoke } } })).checks.smoke);
        assert.deepEqual(plan({}), { helmTests: true, timeoutSeconds: 300, pollSeconds: 2 }, "the platform check is off by default");
        assert.deepEqual(plan({ platform: true, functionImage: "nvcr.io/a/b:1" })?.platform, {
            apiUrl: "http://api.nvcf.test",
            apiKeysUrl: "http://api-keys.nvcf.test",
            functionImage: "nvcr.io/a/b:1",
            timeoutSeconds: 60,
            retries: 2,
        });
        const configured = plan({
            helmTests: false,
            platform: true,
            functionImage: "nvcr.io/a/b:1",
            apiURL: "https://203.0.113.7",
            apiHostHeader: "api.nvcf.test",
            timeoutSeconds: 30,
        });
        assert.equal(configured?.helmTests, false);
        assert.deepEqual(
            [configured?.platform?.apiUrl, configured?.platform?.apiHostHeader, configured?.platform?.timeoutSeconds],
            ["https://203.0.113.7", "api.nvcf.test", 30],
        );
        assert.equal(plan({ helmTests: false }), undefined);
    });
});

const run = (over: Partial<HookRun> = {}): HookRun => ({
    release: "invocation-service",
    namespace: "nvcf",
    revision: 2,
    hook: "invocation-service-test-connection",
    kind: "Pod",
    path: "/api/v1/namespaces/nvcf/pods/invocation-service-test-connection",
    phase: "Succeeded",
    detail: "passed in 3 s",
    startedAt: "2026-12-04T10:00:00Z",
    completedAt: "2026-12-04T10:00:03Z",
    ...over,
});

describe("the smoke record and what status says of it", () => {
    const installed = [
        {
            name: "invocation-service",
            namespace: "nvcf",
            revision: 2,
            chart: "helm-nvcf-invocation-service",
            chartVersion: "1.5.6",
            status: "deployed",
            manifest: "",
            hooks: [hook("invocation-service-test-connection")],
        },
        {
            name: "api",
            namespace: "nvcf",
            revision: 1,
            chart: "helm-nvcf-api",
            chartVersion: "1.25.1",
            status: "deployed",
            manifest: "",
            hooks: [],
        },
    ];
    const both = { helmTests: true, platform: true };

    it("round-trips through the ConfigMap's data; data it did not write is no record", () => {
        const record = {
            time: "2026-12-04T10:00:04Z",
            helmTests: [run()],
            platform: { ok: true, steps: [], startedAt: "a", completedAt: "b" },
        };
        assert.deepEqual(parseRecord(recordData(record)), record);
        assert.equal(parseRecord({ time: "x", helmTests: "{" }), undefined);
        assert.equal(parseRecord({ helmTests: "[]" }), undefined);
        assert.equal(parseRecord({ time: "x", helmTests: "[]", platform: "[]" }), undefined);
    });

    it("passes a release tested at its current revision; one tested at an older revision, or never, is inconclusive", () => {
        const record = {
            time: "t",
            helmTests: [run()],
            platform: { ok: true, steps: [{ step: "function created", ok: true, detail: "" }], startedAt: "a", completedAt: "b" },
        };
        const [tested, platform] = smokeStatus(record, installed, both);
        assert.equal(tested.name, "helm test invocation-service");
        assert.equal(tested.ok, true);
        assert.match(tested.detail, /^revision 2: invocation-service-test-connection passed in 3 s/);
        assert.equal(platform.ok, true);

        const [stale] = smokeStatus({ ...record, helmTests: [run({ revision: 1 })] }, installed, both);
        assert.deepEqual([stale.ok, stale.inconclusive], [false, true]);
        assert.match(stale.detail, /revision 2 has not been tested; the last run tested revision 1/);

        const none = smokeStatus(undefined, installed, both);
        assert.ok(none.every((r) => !r.ok && r.inconclusive));
        assert.match(none[1].detail, new RegExp(`no run recorded in ConfigMap ${SMOKE_RECORD.namespace}/${SMOKE_RECORD.name}`));
        assert.deepEqual(smokeStatus(undefined, installed, { helmTests: false, platform: false }), []);
    });

    it("a failed run fails status, naming the Pod and what it said", () => {
        const record = { time: "t", helmTests: [run({ phase: "Failed", detail: "Failed: container wget exited 1" })] };
        const [failed] = smokeStatus(record, installed, { helmTests: true, platform: false });
        assert.equal(failed.ok, false);
        assert.equal(failed.inconclusive, undefined);
        assert.match(failed.detail, /Pod nvcf\/invocation-service-test-connection failed at .*: Failed: container wget exited 1/);
        assert.match(failed.fix, /kubectl -n nvcf describe pod invocation-service-test-connection/);
    });
});

describe("the smoke check resource", () => {
    const inputs = (over: Partial<SmokeCheckInputs> = {}): SmokeCheckInputs => ({
        reach: { kubeconfigSource: "default" } as SmokeCheckInputs["reach"],
        releases: [{ name: "invocation-service", namespace: "nvcf", revision: 1 }],
        helmTests: true,
        timeoutSeconds: 5,
        pollSeconds: 1,
        ...over,
    });
    const withRelease = (outcome: "Succeeded" | "Failed") => {
        const c = cluster({ t: outcome });
        invocationService(c.fake, [podHook("t")], 1);
        return c;
    };

    it("records a passing run where status reads it; delete removes the test Pod and the record", async () => {
        const { kube, fake } = withRelease("Succeeded");
        const provider = new SmokeCheckProvider({ kube, say: () => {} });
        const outs = (await provider.create(inputs())).outs!;
        assert.deepEqual(
            outs.helmTestRuns.map((r) => [r.release, r.phase]),
            [["invocation-service", "Succeeded"]],
        );
        const record = await readRecord(kube);
        assert.deepEqual(record?.helmTests, outs.helmTestRuns);
        await provider.delete("id", outs);
        assert.equal(fake.objects.has("/api/v1/namespaces/nvcf/pods/t"), false);
        assert.equal(await readRecord(kube), undefined);
    });

    it("a failed test fails up with what failed and how to go on, and is recorded all the same", async () => {
        const { kube } = withRelease("Failed");
        const provider = new SmokeCheckProvider({ kube, say: () => {} });
        await assert.rejects(provider.create(inputs()), (err: Error) => {
            assert.match(
                err.message,
                /^the smoke check after install failed:\n {2}helm test invocation-service \(revision 1\): Pod nvcf\/t: Failed/,
            );
            assert.match(err.message, /run pulumi up again, which runs the smoke check again/);
            return true;
        });
        assert.equal((await readRecord(kube))?.helmTests[0].phase, "Failed");
    });

    it("runs again when a release's revision changes, not on a rerun with nothing changed", async () => {
        const provider = new SmokeCheckProvider({ say: () => {} });
        const olds = { ...inputs(), helmTestRuns: [] };
        assert.equal((await provider.diff("id", olds, inputs())).changes, false);
        const upgraded = inputs({ releases: [{ name: "invocation-service", namespace: "nvcf", revision: 2 }] });
        assert.equal((await provider.diff("id", olds, upgraded)).changes, true);
    });
});
