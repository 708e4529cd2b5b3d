/**
 * The environment means what Helmfile makes of it: merged over base.yaml at every level, every
 * key of NVIDIA's environment files accepted, values of the bundle's types. Each case is one of
 * the defects Helmfile's own output showed (the parity test, test/parity/, checks all of it
 * against the real bundle where helmfile is built).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { before, describe, test } from "node:test";
import { BUNDLE_BASE, overBundleBase } from "../config/model/bundle-base";
import { controlPlaneSchema, environmentSchema } from "../config/model/schema";
import type { ChartReadsFile } from "../scripts/parity/chart-sources";
import { ENVIRONMENTS, programEnvironment } from "./parity/environments";
import { schemaAccepts } from "./parity/schema-paths";
import { type ProgramRun, release, valuesOf } from "./support/harness";
import { runDev } from "./support/runs";

describe("an environment is merged over base.yaml, as Helmfile merges it", () => {
    test("maps merge at every level; lists, scalars and nulls replace", () => {
        const env = overBundleBase({
            global: { nodeSelectors: { cassandra: null }, tolerations: { all: [{ key: "a", operator: "Exists" }] } },
        }) as typeof BUNDLE_BASE & { global: { nodeSelectors: Record<string, unknown>; tolerations: Record<string, unknown> } };
        assert.equal(env.global.nodeSelectors.cassandra, null);
        assert.deepEqual(env.global.nodeSelectors.vault, { key: "nvcf.nvidia.com/workload", value: "vault" });
        assert.deepEqual(env.global.tolerations, { enabled: false, all: [{ key: "a", operator: "Exists" }] });
        assert.equal(
            (BUNDLE_BASE.global as { nodeSelectors: { cassandra: unknown } }).nodeSelectors.cassandra !== null,
            true,
            "base untouched",
        );
    });

    let run: ProgramRun;
    before(async () => {
        run = await runDev({
            apikeys: { podDisruptionBudget: { enabled: true } },
            cassandra: { podDisruptionBudget: { enabled: true } },
            openbao: { injector: { webhook: { timeoutSeconds: 5 } } },
            prometheusOperatorCrds: { values: { crds: { probes: { enabled: true } } } },
            victoriaMetrics: { server: { retentionPeriod: 3, resources: { limits: { memory: "2Gi" } } } },
        });
    });

    test("a disruption budget turned on keeps base.yaml's bound (the charts need exactly one)", () => {
        assert.deepEqual(valuesOf(run, "api-keys").apikeys.podDisruptionBudget, { enabled: true, maxUnavailable: 1 });
        assert.deepEqual(valuesOf(run, "cassandra").cassandra.podDisruptionBudget, { enabled: true, minAvailable: 2 });
    });

    test("the injector's webhook keeps failurePolicy: Ignore next to a key of its own", () => {
        assert.deepEqual(valuesOf(run, "openbao-server").openbao.injector.webhook, { failurePolicy: "Ignore", timeoutSeconds: 5 });
    });

    test("one Prometheus Operator CRD switched on keeps the others' switches", () => {
        const crds = valuesOf(run, "prometheus-operator-crds").crds as Record<string, { enabled: boolean }>;
        assert.deepEqual(
            Object.entries(crds)
                .filter(([, c]) => c.enabled)
                .map(([name]) => name)
                .sort(),
            ["podmonitors", "probes", "servicemonitors"],
        );
        assert.equal(Object.keys(crds).length, 10);
    });

    test("VictoriaMetrics gets the observability bundle's values: the vmsingle server the others point at", () => {
        const values = valuesOf(run, "victoria-metrics");
        assert.deepEqual(values.server, {
            fullnameOverride: "vmsingle",
            retentionPeriod: "3",
            persistentVolume: { enabled: true, size: "16Gi" },
            resources: { requests: { cpu: "100m", memory: "256Mi" }, limits: { cpu: "1", memory: "2Gi" } },
            serviceMonitor: { enabled: true },
        });
        assert.deepEqual(values.global, { imagePullSecrets: [{ name: "nvcr-pull-secret" }] }, "this chart reads pull secrets under global");
        assert.equal(values.imagePullSecrets, undefined);
        const remoteWrite = (valuesOf(run, "otel-collector").config as { exporters: { prometheusremotewrite: { endpoint: string } } })
            .exporters.prometheusremotewrite.endpoint;
        assert.equal(remoteWrite, "http://vmsingle.monitoring.svc.cluster.local:8428/api/v1/write");
    });
});

describe("NVIDIA's environment keys and value types", () => {
    test("every key the pinned bundle's templates read is a key controlPlane accepts", () => {
        const table = JSON.parse(fs.readFileSync(path.join(__dirname, "fixtures", "chart-reads.json"), "utf8")) as ChartReadsFile;
        assert.ok(table.environmentKeys.length > 200);
        assert.equal(schemaAccepts(environmentSchema, ["global", "domian"]), false, "a strict object refuses other keys");
        assert.equal(schemaAccepts(environmentSchema, ["openbao", "migrations", "anything"]), true, "a pass-through block takes any");
        assert.deepEqual(
            table.environmentKeys.filter((key) => !schemaAccepts(environmentSchema, key.split("."))),
            [],
        );
    });

    test("every parity environment is a valid controlPlane", () => {
        for (const name of ENVIRONMENTS) {
            const parsed = controlPlaneSchema.safeParse(programEnvironment(name));
            assert.ok(parsed.success, `${name}: ${parsed.success ? "" : parsed.error.message}`);
        }
    });

    test("an existing metrics backend takes type: external; VictoriaMetrics keys move its release", async () => {
        const existing = await runDev({
            metricsBackend: {
                mode: "existing",
                type: "external",
                remoteWriteEndpoint: "http://m/api/v1/write",
                promqlEndpoint: "http://m",
            },
        });
        assert.throws(() => release(existing, "victoria-metrics"));
        const moved = await runDev({ victoriaMetrics: { namespace: "metrics", version: "0.38.1" } });
        assert.equal(release(moved, "victoria-metrics").inputs.namespace, "metrics");
        assert.equal(release(moved, "victoria-metrics").inputs.version, "0.38.1");
        assert.equal(
            valuesOf(moved, "function-autoscaler").functionautoscaler.env.TIMESERIES_DB__TIMESERIES_DB_URL,
            "http://vmsingle.metrics.svc.cluster.local:8428",
        );
    });

    test("observability components that exist already are not installed; the collector's switches follow", async () => {
        const run = await runDev({
            observability: { components: { prometheusOperatorCrds: { mode: "existing" }, targetAllocator: { mode: "disabled" } } },
        });
        assert.throws(() => release(run, "prometheus-operator-crds"));
        const collector = valuesOf(run, "otel-collector");
        assert.equal(collector.targetAllocator.enabled, false);
        assert.deepEqual(collector.targetAllocatorRbac, { create: true });
    });

    test("nvct-api's tracing switch is a YAML bool, as the bundle's unquoted template renders it", async () => {
        const dev = await runDev();
        assert.equal(valuesOf(dev, "nvct-api").nvctApi.env.MANAGEMENT_TRACING_ENABLED, false);
        assert.equal(valuesOf(dev, "api").api.env.MANAGEMENT_TRACING_ENABLED, "false", "the api's template quotes it");
    });
});
