/**
 * The comparison of a release's objects with what Helm recorded, as pure functions: which fields
 * differ (test/e2e/e2e.test.ts runs it against a real API server's dry-run), who holds each
 * (metadata.managedFields in the FieldsV1 form, docs/contracts.md), the ignore rules, and the lines
 * `npm run status` prints.
 */
import assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import { before, describe, test } from "node:test";
import { differences } from "../lib/drift/compare";
import { changedByOf, describeChangedBy, type ManagedFieldsEntry } from "../lib/drift/managers";
import { formatPath, parsePath, pathMatches, type FieldPath } from "../lib/drift/path";
import { BUILT_IN_IGNORES, hidesValue, ignoredBy, userRules } from "../lib/drift/rules";
import { objectsSummaryCheck, releaseObjectsCheck, uncomparedCheck } from "../lib/drift/check";
import { autoscaledTargets, type ReleaseObjects } from "../lib/drift/release-objects";
import { fieldPath } from "../config/model/grammar";
import { assertProblems, devRaw, parse } from "./support/raw-config";
import { correctionPatch, recreated } from "../lib/drift/correction";
import { devConfig, release, runProgram, withConfig, type ProgramRun } from "./support/harness";
import { runDev } from "./support/runs";

/** A Deployment as the API server serves it after Helm created it, with defaults filled in. */
function deployment(image: string, env: { name: string; value: string }[], replicas = 2) {
    return {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: {
            name: "api",
            namespace: "nvcf",
            uid: "1d0c7a5e-0000-4000-8000-000000000001",
            resourceVersion: "812",
            generation: 3,
            creationTimestamp: "2026-12-04T16:00:00Z",
            labels: { "app.kubernetes.io/name": "api" },
            annotations: { "meta.helm.sh/release-name": "api", "meta.helm.sh/release-namespace": "nvcf" },
        },
        spec: {
            replicas,
            selector: { matchLabels: { "app.kubernetes.io/name": "api" } },
            template: {
                metadata: { labels: { "app.kubernetes.io/name": "api" } },
                spec: {
                    containers: [
                        { name: "api", image, imagePullPolicy: "IfNotPresent", env, ports: [{ containerPort: 8080, protocol: "TCP" }] },
                        { name: "sidecar", image: "nvcr.io/nvidia/nvcf/sidecar:1.0.0", imagePullPolicy: "IfNotPresent" },
                    ],
                    restartPolicy: "Always",
                },
            },
        },
        status: { replicas, readyReplicas: replicas },
    };
}

const paths = (ds: { path: FieldPath }[]) => ds.map((d) => formatPath(d.path));

describe("differences: the live object against the recorded one applied to it", () => {
    test("the same object, whatever the API server keeps about it, has none", () => {
        const applied = deployment("nvcr.io/nvidia/nvcf/api:1.2.0", [{ name: "LOG_LEVEL", value: "info" }]);
        const live = {
            ...applied,
            metadata: { ...applied.metadata, resourceVersion: "900", generation: 4, managedFields: [{ manager: "helm" }] },
            status: { replicas: 1 },
        };
        assert.deepEqual(differences(applied, live), []);
    });

    test("a changed image, a removed env item and a changed env value are named by the items' names, not positions", () => {
        const applied = deployment("nvcr.io/nvidia/nvcf/api:1.2.0", [
            { name: "LOG_LEVEL", value: "info" },
            { name: "REGION", value: "us-west-2" },
        ]);
        const live = deployment("nvcr.io/nvidia/nvcf/api:9.9.9", [{ name: "REGION", value: "eu-west-1" }]);
        const found = differences(applied, live);
        assert.deepEqual(paths(found), [
            "spec.template.spec.containers[api].image",
            "spec.template.spec.containers[api].env[REGION].value",
            "spec.template.spec.containers[api].env[LOG_LEVEL]",
        ]);
        assert.deepEqual(
            found.map((d) => [d.recorded, d.live]),
            [
                ["nvcr.io/nvidia/nvcf/api:1.2.0", "nvcr.io/nvidia/nvcf/api:9.9.9"],
                ["us-west-2", "eu-west-1"],
                [{ name: "LOG_LEVEL", value: "info" }, undefined],
            ],
        );
        // Each item's position is the live list's, where managedFields find it.
        assert.equal(found[1].path.find((s) => s.key === "REGION")?.index, 0);
    });

    test("a list of unnamed items is compared by position, and whole when its length changed", () => {
        const applied = { spec: { args: ["--port", "8080"], ports: [{ port: 80 }, { port: 443 }] } };
        assert.deepEqual(paths(differences(applied, { spec: { args: ["--port", "9090"], ports: [{ port: 80 }, { port: 443 }] } })), [
            "spec.args[1]",
        ]);
        assert.deepEqual(paths(differences(applied, { spec: { args: ["--port", "8080"], ports: [{ port: 80 }] } })), ["spec.ports"]);
    });

    test("a ConfigMap key with dots is written in brackets, and parses back", () => {
        const found = differences({ data: { "config.yaml": "a: 1" } }, { data: { "config.yaml": "a: 2" } });
        assert.equal(formatPath(found[0].path), "data[config.yaml]");
        assert.deepEqual(parsePath("data[config.yaml]"), ["data", "config.yaml"]);
        assert.deepEqual(parsePath("spec.template.spec.containers[api].image"), ["spec", "template", "spec", "containers", "api", "image"]);
    });
});

/** managedFields as the API server writes them: FieldsV1 sets with f: fields, k: associative list items, v: set items. */
const MANAGED: ManagedFieldsEntry[] = [
    {
        manager: "helm",
        operation: "Update",
        time: "2026-12-04T16:00:00Z",
        fieldsV1: {
            "f:spec": {
                "f:replicas": {},
                "f:template": {
                    "f:spec": {
                        "f:containers": {
                            'k:{"name":"api"}': {
                                ".": {},
                                "f:env": { ".": {}, 'k:{"name":"REGION"}': { ".": {}, "f:name": {}, "f:value": {} } },
                                "f:name": {},
                            },
                            'k:{"name":"sidecar"}': { ".": {}, "f:image": {}, "f:name": {} },
                        },
                    },
                },
            },
        },
    },
    {
        manager: "kubectl-edit",
        operation: "Update",
        time: "2026-12-04T16:05:00Z",
        fieldsV1: { "f:spec": { "f:template": { "f:spec": { "f:containers": { 'k:{"name":"api"}': { "f:image": {} } } } } } },
    },
    {
        manager: "kube-controller-manager",
        operation: "Update",
        subresource: "scale",
        time: "2026-12-04T16:03:00Z",
        fieldsV1: { "f:spec": { "f:replicas": {} } },
    },
];

describe("changedByOf: who holds a changed field", () => {
    const base = deployment("nvcr.io/nvidia/nvcf/api:9.9.9", [{ name: "REGION", value: "eu-west-1" }], 5);
    const live = { ...base, metadata: { ...base.metadata, managedFields: MANAGED } };
    const at = (applied: unknown) => differences(applied, live);

    test("the manager whose set holds the item's field, found by the item's merge key", () => {
        const image = at(deployment("nvcr.io/nvidia/nvcf/api:1.2.0", [{ name: "REGION", value: "eu-west-1" }], 5)).find((d) =>
            formatPath(d.path).endsWith("image"),
        )!;
        const by = changedByOf(live, image.path);
        assert.deepEqual(by, { manager: "kubectl-edit", operation: "Update", time: "2026-12-04T16:05:00Z", owns: true });
        assert.equal(describeChangedBy(by), "changed by kubectl-edit (Update, 2026-12-04T16:05:00Z)");
    });

    test("of two managers holding a field, the newest; a subresource is named", () => {
        const replicas = at(deployment("nvcr.io/nvidia/nvcf/api:9.9.9", [{ name: "REGION", value: "eu-west-1" }], 2));
        assert.deepEqual(paths(replicas), ["spec.replicas"]);
        assert.equal(
            describeChangedBy(changedByOf(live, replicas[0].path)),
            "changed by kube-controller-manager (Update of scale, 2026-12-04T16:03:00Z)",
        );
    });

    test("a removed item is held by no one: the object's newest change is named instead", () => {
        const removed = at(
            deployment(
                "nvcr.io/nvidia/nvcf/api:9.9.9",
                [
                    { name: "LOG_LEVEL", value: "info" },
                    { name: "REGION", value: "eu-west-1" },
                ],
                5,
            ),
        );
        assert.deepEqual(paths(removed), ["spec.template.spec.containers[api].env[LOG_LEVEL]"]);
        assert.equal(
            describeChangedBy(changedByOf(live, removed[0].path)),
            "no manager holds it (removed); the object's latest change: kubectl-edit (Update, 2026-12-04T16:05:00Z)",
        );
    });

    test("a set item (v:) and an atomic field held whole; no managedFields at all", () => {
        const obj = {
            metadata: {
                managedFields: [
                    {
                        manager: "a",
                        operation: "Apply",
                        time: "t1",
                        fieldsV1: { "f:spec": { "f:finalizers": { 'v:"x"': {} }, "f:args": {} } },
                    },
                ],
            },
            spec: { finalizers: ["x"], args: ["--a"] },
        };
        assert.equal(changedByOf(obj, [{ key: "spec" }, { key: "finalizers" }, { key: "0", index: 0 }])?.manager, "a");
        assert.equal(changedByOf(obj, [{ key: "spec" }, { key: "args" }, { key: "0", index: 0 }])?.owns, true);
        assert.equal(
            describeChangedBy(changedByOf({}, [{ key: "data" }])),
            "who changed it is not recorded (the object has no managedFields)",
        );
    });
});

describe("ignore rules", () => {
    const p = (text: string): FieldPath => parsePath(text).map((key) => ({ key }));
    const deploymentObj = { kind: "Deployment", name: "api", autoscaled: false };

    test("replicas are ignored only while a HorizontalPodAutoscaler scales the object", () => {
        // autoscaling/v2 HorizontalPodAutoscaler: spec.scaleTargetRef names what it scales.
        const hpas = [
            { spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "api" }, minReplicas: 1, maxReplicas: 4 } },
            {},
        ];
        assert.deepEqual([...autoscaledTargets(hpas)], ["Deployment/api"]);
        assert.equal(ignoredBy(BUILT_IN_IGNORES, deploymentObj, p("spec.replicas")), undefined);
        assert.match(
            ignoredBy(BUILT_IN_IGNORES, { ...deploymentObj, autoscaled: true }, p("spec.replicas"))!.why,
            /HorizontalPodAutoscaler/,
        );
    });

    test("a webhook's injected caBundle, the restart stamp and the program's own marks", () => {
        const webhook = { kind: "ValidatingWebhookConfiguration", name: "kyverno", autoscaled: false };
        assert.ok(ignoredBy(BUILT_IN_IGNORES, webhook, p("webhooks[validate.kyverno.svc].clientConfig.caBundle")));
        assert.equal(ignoredBy(BUILT_IN_IGNORES, webhook, p("webhooks[validate.kyverno.svc].clientConfig.url")), undefined);
        assert.ok(ignoredBy(BUILT_IN_IGNORES, deploymentObj, p("spec.template.metadata.annotations[kubectl.kubernetes.io/restartedAt]")));
        assert.ok(ignoredBy(BUILT_IN_IGNORES, deploymentObj, p("metadata.annotations[nvcf-self-managed/mek-rotation]")));
        assert.equal(ignoredBy(BUILT_IN_IGNORES, deploymentObj, p("metadata.annotations[example.com/owner]")), undefined);
    });

    test("a stack file rule: its kind and name narrow it, its path covers the fields under it", () => {
        const rules = userRules([{ kind: "ConfigMap", name: "e2e-values-api", path: "data" }]);
        assert.ok(ignoredBy(rules, { kind: "ConfigMap", name: "e2e-values-api", autoscaled: false }, p("data[values]")));
        assert.equal(ignoredBy(rules, { kind: "ConfigMap", name: "other", autoscaled: false }, p("data[values]")), undefined);
        assert.equal(ignoredBy(rules, { kind: "Secret", name: "e2e-values-api", autoscaled: false }, p("data[values]")), undefined);
        assert.equal(pathMatches("spec.template.spec.containers[*].image", p("spec.template.spec.containers[api].image")), true);
        assert.equal(pathMatches("spec.template", p("spec")), false, "a rule never covers a field's parent");
    });

    test("a Secret's data and fields named like credentials never show their values", () => {
        assert.equal(hidesValue("Secret", p("data[password]")), true);
        assert.equal(hidesValue("Secret", p("metadata.labels[app]")), false);
        assert.equal(hidesValue("Deployment", p("spec.template.spec.containers[api].env[DB_PASSWORD].value")), true);
        assert.equal(hidesValue("ConfigMap", p("data[api_key]")), true);
        assert.equal(hidesValue("Deployment", p("spec.template.spec.containers[api].image")), false);
    });

    test("the stack file's driftIgnore: a path that is not one is refused, naming the key", () => {
        assert.equal(fieldPath.check("spec.template.spec.containers[*].image"), undefined);
        assert.equal(fieldPath.check("data[config.yaml]"), undefined);
        assertProblems(devRaw({ values: { releases: { api: { driftIgnore: [{ path: "spec..replicas" }] } } } }), [
            {
                key: "nvcf-self-managed:releases.api.driftIgnore[0].path",
                message: "must be a field path: it is not steps joined by '.' and [...]",
                given: "spec..replicas",
                allowed: fieldPath.allowed,
            },
        ]);
        const settings = parse(devRaw({ values: { releases: { api: { driftIgnore: [{ kind: "Deployment", path: "spec.replicas" }] } } } }));
        assert.deepEqual(settings.releases.api.driftIgnore, [{ kind: "Deployment", path: "spec.replicas" }]);
    });
});

describe("the status lines", () => {
    const report = (drifted: ReleaseObjects["drifted"], ignored = 0): ReleaseObjects => ({
        release: "api",
        namespace: "nvcf",
        revision: 3,
        objects: 4,
        drifted,
        ignored,
    });
    const changed = {
        kind: "Deployment",
        name: "api",
        namespace: "nvcf",
        state: "changed" as const,
        fields: [
            {
                path: "spec.template.spec.containers[api].image",
                recorded: '"a:1"',
                live: '"a:2"',
                changedBy: "changed by kubectl-edit",
                manager: "kubectl-edit",
            },
        ],
    };

    test("a release as recorded passes, counting what the rules ignored", () => {
        assert.deepEqual(releaseObjectsCheck(report([], 1), "dev"), {
            name: "objects api",
            ok: true,
            detail: "nvcf: 4 objects as revision 3 recorded them; 1 difference ignored by rule",
            fix: "",
        });
    });

    test("a changed and a missing object fail, with how to look closer and how to put them back", () => {
        const r = releaseObjectsCheck(
            report([changed, { kind: "ConfigMap", name: "api-config", namespace: "nvcf", state: "missing", fields: [] }]),
            "dev",
        );
        assert.equal(r.ok, false);
        assert.equal(r.inconclusive, undefined);
        assert.equal(r.detail, "nvcf, revision 3: Deployment nvcf/api: 1 field; ConfigMap nvcf/api-config missing");
        assert.match(r.fix, /npm run status -- --stack dev --drift/);
        assert.match(
            r.fix,
            /helm -n nvcf get manifest api \| kubectl apply --server-side --force-conflicts --field-manager=pulumi-resource-kubernetes -f -/,
        );
        assert.match(r.fix, /releases\.api\.driftIgnore/);
        assert.match(r.fix, /releases\.api\.drift: correct and pulumi up/);
    });

    test("objects that could not be compared are inconclusive, never a pass", () => {
        const r = releaseObjectsCheck(
            report([
                {
                    kind: "Deployment",
                    name: "api",
                    namespace: "nvcf",
                    state: "unknown",
                    fields: [],
                    detail: "the dry-run apply answered HTTP 403",
                },
            ]),
            "dev",
        );
        assert.equal(r.ok, false);
        assert.equal(r.inconclusive, true);
        const unread = uncomparedCheck({ release: "ess-api", namespace: "ess", error: "the record of revision 2 could not be decoded" });
        assert.deepEqual(unread, {
            name: "objects ess-api",
            ok: false,
            inconclusive: true,
            detail: "ess: not compared: the record of revision 2 could not be decoded",
            fix: "helm -n ess get manifest ess-api",
        });
    });

    test("the plain status's one line: the drifted releases by name, or every object counted", () => {
        const clean = { ...report([]), release: "sis" };
        assert.deepEqual(objectsSummaryCheck([clean], [], "dev"), {
            name: "release objects",
            ok: true,
            detail: "4 objects of 1 releases as Helm recorded them",
            fix: "",
        });
        const r = objectsSummaryCheck([clean, report([changed])], [{ release: "ess-api", namespace: "ess", error: "HTTP 403" }], "dev");
        assert.equal(r.ok, false);
        assert.equal(r.detail, "1 of 3 releases differ from what Helm recorded: api (Deployment nvcf/api: 1 field); not compared: ess-api");
        assert.equal(r.fix, "npm run status -- --stack dev --drift names each field and who changed it");
        const unsure = objectsSummaryCheck([clean], [{ release: "ess-api", namespace: "ess", error: "HTTP 403" }], "dev");
        assert.equal(unsure.inconclusive, true);
    });
});

describe("drift: correct", () => {
    test("the patch holds only the drifted fields, as the recorded object applied to the live one has them", () => {
        const applied = deployment("nvcr.io/nvidia/nvcf/api:1.2.0", [{ name: "LOG_LEVEL", value: "info" }], 2);
        const live = deployment("nvcr.io/nvidia/nvcf/api:9.9.9", [], 5);
        const found = differences(applied, live);
        // A merge patch replaces lists whole: the containers list comes from the applied object, other managers' items included.
        assert.deepEqual(
            correctionPatch(
                applied,
                found.map((d) => d.path),
            ),
            { spec: { replicas: 2, template: { spec: { containers: applied.spec.template.spec.containers } } } },
        );
        // A field the recorded object lacks is removed; a key with dots stays one key.
        assert.deepEqual(
            correctionPatch({ data: { "config.yaml": "a: 1" } }, [
                [{ key: "data" }, { key: "config.yaml" }],
                [{ key: "data" }, { key: "extra" }],
            ]),
            { data: { "config.yaml": "a: 1", extra: null } },
        );
    });

    test("a missing object is created again as Helm creates it: with the ownership label and annotations Helm adds", () => {
        const cm = {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "e2e-values-sis", namespace: "sis", labels: { app: "sis" } },
            data: { a: "1" },
        };
        assert.deepEqual(recreated(cm, { name: "sis", namespace: "sis" }), {
            ...cm,
            metadata: {
                ...cm.metadata,
                labels: { app: "sis", "app.kubernetes.io/managed-by": "Helm" },
                annotations: { "meta.helm.sh/release-name": "sis", "meta.helm.sh/release-namespace": "sis" },
            },
        });
    });

    test("the comparison and the patch work as Pulumi serializes them for the provider host (no Set or class field is lost)", async () => {
        const serialized = await pulumi.runtime.serializeFunction(() => (applied: unknown, live: unknown) => {
            const paths = differences(applied, live).map((d) => d.path);
            return { paths: paths.map(formatPath), patch: correctionPatch(applied, paths) };
        });
        const module = { exports: {} as { handler?: () => (a: unknown, b: unknown) => { paths: string[]; patch: unknown } } };
        new Function("exports", "require", "module", serialized.text)(module.exports, require, module);
        const applied = deployment("nvcr.io/nvidia/nvcf/api:1.2.0", [], 2);
        const live = { ...deployment("nvcr.io/nvidia/nvcf/api:1.2.0", [], 3), metadata: { ...applied.metadata, resourceVersion: "9" } };
        assert.deepEqual(module.exports.handler!()(applied, live), { paths: ["spec.replicas"], patch: { spec: { replicas: 2 } } });
    });

    const CORRECTION = "pulumi-nodejs:dynamic/nvcf:ReleaseDriftCorrection";
    let dev: ProgramRun;
    let correcting: ProgramRun;
    before(async () => {
        dev = await runDev();
        const { config, secretKeys } = devConfig();
        correcting = await runProgram(
            withConfig(config, {
                "nvcf-self-managed:releases": {
                    cassandra: { drift: "correct", driftCorrectClaims: ["data-cassandra-0"] },
                    api: { drift: "correct", driftIgnore: [{ kind: "Deployment", path: "spec.replicas" }] },
                    sis: { drift: "warn" },
                },
            }),
            secretKeys,
        );
    });

    test("by default nothing corrects: drift is reported only", () => {
        assert.deepEqual(
            dev.resources.filter((r) => r.type === CORRECTION),
            [],
        );
    });

    test("one correction per release that asks, after its release and before the health gate, with its ignores and claims", () => {
        const made = correcting.resources.filter((r) => r.type === CORRECTION);
        assert.deepEqual(made.map((r) => r.name).sort(), ["control-plane-api-drift", "control-plane-cassandra-drift"]);
        const gate = correcting.resources.find((r) => r.name === "control-plane-health-gate")!;
        for (const [name, r] of [
            ["api", made.find((m) => m.name === "control-plane-api-drift")!],
            ["cassandra", made.find((m) => m.name === "control-plane-cassandra-drift")!],
        ] as const) {
            assert.ok(r.dependencies.includes(release(correcting, name).urn), `${name}: after its release`);
            assert.ok(gate.dependencies.includes(r.urn), `${name}: before the health gate`);
        }
        const api = made.find((m) => m.name === "control-plane-api-drift")!.inputs as Record<string, unknown>;
        assert.equal(api.release, "api");
        assert.equal(api.namespace, "nvcf");
        assert.deepEqual(api.ignore, [{ kind: "Deployment", path: "spec.replicas" }]);
        assert.deepEqual(api.claims, []);
        const cassandra = made.find((m) => m.name === "control-plane-cassandra-drift")!.inputs as Record<string, unknown>;
        assert.deepEqual(cassandra.claims, ["data-cassandra-0"]);
    });

    test("a drift mode that is neither is refused, naming the key", () => {
        assertProblems(devRaw({ values: { releases: { api: { drift: "fix" } } } }), [
            { key: "nvcf-self-managed:releases.api.drift", message: "drift must be warn or correct", given: "fix" },
        ]);
    });
});
