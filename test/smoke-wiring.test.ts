import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import * as pulumi from "@pulumi/pulumi";
import type { ProgramRun } from "./support/harness";
import { runDev } from "./support/runs";
import { FakeControlPlane } from "./support/fake-icms";
import { FakeKubeApi, inProcessKube } from "./support/fake-kube-api";
import { runReleaseTests } from "../lib/smoke/helm-tests";
import { platformSmoke, type PlatformRun } from "../lib/smoke/platform";
import { installedReleases } from "../lib/health/helm-releases";
import type { Kube } from "../lib/kubernetes/client";

const SMOKE = "pulumi-nodejs:dynamic/nvcf:SmokeCheck";
const byName = (run: ProgramRun, name: string) => run.resources.find((r) => r.name === name);

describe("the smoke check in the program", () => {
    let dev: ProgramRun;
    let noWait: ProgramRun;
    before(async () => {
        [dev, noWait] = await Promise.all([runDev(), runDev({}, { "nvcf-self-managed:cluster": { skipAwait: true } })]);
    });

    test("the dev stack runs the charts' helm tests beside the health gate, after every control-plane release", () => {
        const smoke = byName(dev, "control-plane-smoke")!;
        const gate = byName(dev, "control-plane-health-gate")!;
        assert.equal(smoke.type, SMOKE);
        assert.ok(!smoke.dependencies.includes(gate.urn), "Helm waited for each release's pods: no need to wait for the gate");
        for (const r of dev.resources.filter((r) => r.type === "kubernetes:helm.sh/v3:Release"))
            assert.ok(smoke.dependencies.includes(r.urn), `after ${r.name}`);
        const { __provider: _source, ...inputs } = smoke.inputs as Record<string, any>;
        // What smokePlan gives (test/smoke.test.ts), where the kubeconfig is, and the releases; never a token.
        assert.deepEqual(Object.keys(inputs).sort(), ["helmTests", "pollSeconds", "reach", "releases", "timeoutSeconds"]);
        assert.deepEqual(inputs.reach, { kubeconfigSource: "control-plane" });
        assert.equal(inputs.helmTests, true);
        const releases = dev.resources.filter((r) => r.type === "kubernetes:helm.sh/v3:Release" && r.name.startsWith("control-plane-"));
        assert.equal(inputs.releases.length, releases.length, "each release's revision: a new one runs the smoke again");
        assert.ok(
            inputs.releases.some((r: { name: string; namespace: string }) => r.name === "invocation-service" && r.namespace === "nvcf"),
        );
        assert.ok(inputs.releases.some((r: { name: string }) => r.name === "function-autoscaler"));
        assert.ok("smoke" in dev.outputs, "the last run is a stack output");
    });

    test("without Helm's wait (cluster.skipAwait), after the health gate", () => {
        const smoke = byName(noWait, "control-plane-smoke")!;
        assert.ok(smoke.dependencies.includes(byName(noWait, "control-plane-health-gate")!.urn));
    });
});

describe("the smoke check as Pulumi serializes it for the provider host", () => {
    test("the helm tests and the platform check still run (no Set or class field is lost)", async () => {
        const serialized = await pulumi.runtime.serializeFunction(() => async (kube: Kube, target: Parameters<typeof platformSmoke>[0]) => {
            const [release] = await installedReleases(kube, ["nvcf"]);
            const runs = await runReleaseTests(kube, release, { timeoutSeconds: 5, pollMs: 1, say: () => {} });
            return { runs, platform: await platformSmoke(target, undefined, () => {}, 0) };
        });
        type Handler = () => (
            kube: Kube,
            target: Parameters<typeof platformSmoke>[0],
        ) => Promise<{ runs: unknown[]; platform: PlatformRun }>;
        const module = { exports: {} as { handler?: Handler } };
        new Function("exports", "require", "module", serialized.text)(module.exports, require, module);

        const api = new FakeKubeApi().putRelease({
            name: "invocation-service",
            namespace: "nvcf",
            revision: 1,
            chart: "helm-nvcf-invocation-service",
            version: "1.5.6",
            status: "deployed",
            hooks: [
                {
                    name: "t",
                    kind: "ConfigMap",
                    path: "tests/t.yaml",
                    manifest: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\n",
                    events: ["test"],
                },
            ],
        });
        api.put("/api/v1", {
            kind: "APIResourceList",
            groupVersion: "v1",
            resources: [{ name: "configmaps", kind: "ConfigMap", namespaced: true }],
        });
        const base = inProcessKube(api);
        const created: string[] = [];
        const kube: Kube = {
            server: "fake",
            async request(method, path) {
                if (method === "GET") return base.request(method, path);
                created.push(`${method} ${path.split("?")[0]}`);
                return { status: method === "DELETE" ? 404 : 201, body: {}, text: "" };
            },
        };
        const icms = new FakeControlPlane();
        await icms.start();
        try {
            const out = await module.exports.handler!()(kube, {
                apiUrl: icms.icmsUrl,
                apiKeysUrl: icms.icmsUrl,
                functionImage: "nvcr.io/example/echo:1",
                timeoutSeconds: 5,
                retries: 0,
            });
            assert.equal(out.runs.length, 1);
            assert.deepEqual(created, ["DELETE /api/v1/namespaces/nvcf/configmaps/t", "POST /api/v1/namespaces/nvcf/configmaps"]);
            assert.equal(out.platform.ok, true, JSON.stringify(out.platform.steps));
        } finally {
            await icms.stop();
        }
    });
});
