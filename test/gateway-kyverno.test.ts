import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { before, describe, test } from "node:test";
import { GATEWAY_API_CRDS } from "../lib/contracts/gateway-api";
import { gatewayApiManifestProblem } from "../components/control-plane/gateway-api-manifest";
import { gatewaySpecs } from "../components/control-plane/gateway-prerequisites";
import { controlPlaneSchema } from "../config/model/schema";
import {
    devConfig,
    type ProgramRun,
    type RecordedResource,
    release,
    releases,
    runProgram,
    runProgramExpectingError,
    valuesOf,
    withConfig,
} from "./support/harness";

// The two "nothing by hand" settings: the Gateway prerequisites installed with the stack, and
// NVIDIA's recommended Kyverno pull-secret mode. Off, the dev stack renders as before (the render
// tests compare it byte for byte); on, these tests check the resources, their order and the values.

const CRDS = path.resolve(__dirname, "fixtures", "gateway-api-crds.yaml");
const GATEWAY_ON = {
    ingress: { gatewayApi: { install: { enabled: true, crdsManifest: CRDS, envoyGateway: { version: "v1.2.1" } } } },
};
const KYVERNO_ON = { pullSecret: { mode: "kyverno" }, kyverno: { install: true, version: "3.3.4" } };
const P = "nvcf-self-managed";

async function run(over: Record<string, unknown>): Promise<ProgramRun> {
    const { config, secretKeys } = devConfig();
    return runProgram(withConfig(config, over), secretKeys);
}

const byType = (r: ProgramRun, type: string) => r.resources.filter((x) => x.type === type);
const named = (r: ProgramRun, name: string): RecordedResource => {
    const found = r.resources.find((x) => x.name === name);
    assert.ok(found, `resource ${name}`);
    return found;
};
const dependsOn = (r: RecordedResource, on: RecordedResource) => r.dependencies.includes(on.urn);

describe("with both settings off (the dev stack)", () => {
    let dev: ProgramRun;
    before(async () => {
        dev = await run({});
    });
    test("no CRD, Gateway, GatewayClass, Envoy Gateway, Kyverno or ClusterPolicy is declared", () => {
        const types = new Set(dev.resources.map((r) => r.type));
        for (const type of [
            "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition",
            "kubernetes:gateway.networking.k8s.io/v1:Gateway",
            "kubernetes:gateway.networking.k8s.io/v1:GatewayClass",
            "kubernetes:kyverno.io/v1:ClusterPolicy",
        ])
            assert.ok(!types.has(type), type);
        const names = releases(dev).map((r) => r.inputs.name);
        assert.ok(!names.includes("eg") && !names.includes("kyverno"));
        // The controller's and the Gateway's namespaces stay prerequisites.
        const namespaces = byType(dev, "kubernetes:core/v1:Namespace").map((n) => (n.inputs.metadata as { name: string }).name);
        assert.ok(!namespaces.includes("envoy-gateway-system") && !namespaces.includes("envoy-gateway"));
    });
    test("the charts' values carry the stack's pull secret", () => {
        assert.ok(mentions(valuesOf(dev, "nats"), SECRET) && mentions(valuesOf(dev, "api"), SECRET));
    });
});

const SECRET = "nvcr-pull-secret";
/** Whether the string appears anywhere in a values document. */
function mentions(doc: unknown, text: string): boolean {
    if (doc === text) return true;
    if (Array.isArray(doc)) return doc.some((d) => mentions(d, text));
    if (doc && typeof doc === "object") return Object.values(doc).some((d) => mentions(d, text));
    return false;
}

describe("the Gateway listeners follow the routes", () => {
    const cp = (gatewayApi: Record<string, unknown>) =>
        controlPlaneSchema.parse({
            ingress: {
                gatewayApi: {
                    controllerNamespace: "envoy-gateway-system",
                    gateways: {
                        shared: { name: "nvcf-gateway", namespace: "envoy-gateway" },
                        grpc: { name: "nvcf-gateway", namespace: "envoy-gateway" },
                        nats: { name: "nats-gateway", namespace: "nats-gw" },
                    },
                    ...gatewayApi,
                },
            },
        });
    test("shared and gRPC Gateways of one name are one Gateway with http 80 and tcp 10081", () => {
        assert.deepEqual(gatewaySpecs(cp({})), [
            {
                name: "nvcf-gateway",
                namespace: "envoy-gateway",
                listeners: [
                    { name: "http", protocol: "HTTP", port: 80 },
                    { name: "tcp", protocol: "TCP", port: 10081 },
                ],
            },
        ]);
    });
    test("the worker route adds its listener (10086) to the gRPC Gateway; the NATS route a 4222 listener to the NATS Gateway", () => {
        const specs = gatewaySpecs(cp({ routes: { grpcWorker: { enabled: true }, nats: { enabled: true } } }));
        assert.deepEqual(
            specs.map((g) => [g.namespace, g.name, g.listeners.map((l) => `${l.name}:${l.port}`)]),
            [
                ["envoy-gateway", "nvcf-gateway", ["http:80", "tcp:10081", "worker-tcp:10086"]],
                ["nats-gw", "nats-gateway", ["nats:4222"]],
            ],
        );
    });
});

describe("ingress.gatewayApi.install", () => {
    let on: ProgramRun;
    before(async () => {
        on = await run({ [`${P}:controlPlane`]: GATEWAY_ON });
    });
    const crds = () => byType(on, "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition");
    const eg = () => release(on, "eg");
    const gatewayClass = () => byType(on, "kubernetes:gateway.networking.k8s.io/v1:GatewayClass")[0];
    const gateways = () => byType(on, "kubernetes:gateway.networking.k8s.io/v1:Gateway");

    test("declares the manifest's CRDs, as given (without their status)", () => {
        assert.deepEqual(
            crds()
                .map((c) => (c.inputs.metadata as { name: string }).name)
                .sort(),
            ["gatewayclasses", "gateways", "httproutes", "referencegrants", "tcproutes"].map((n) => `${n}.gateway.networking.k8s.io`),
        );
        for (const crd of crds()) assert.equal(crd.inputs.status, undefined);
    });
    test("installs Envoy Gateway as release eg in the controller namespace, pinned, after the CRDs and its namespace", () => {
        assert.equal(eg().inputs.namespace, "envoy-gateway-system");
        assert.equal(eg().inputs.version, "v1.2.1");
        assert.equal(eg().inputs.chart, "oci://docker.io/envoyproxy/gateway-helm");
        assert.equal(eg().inputs.createNamespace, false);
        for (const crd of crds()) assert.ok(dependsOn(eg(), crd), "eg after the CRDs");
        assert.ok(dependsOn(eg(), named(on, "control-plane-namespaces-envoy-gateway-system")));
    });
    test("a GatewayClass served by Envoy Gateway, and the Gateway with exactly the routes' listeners, admitting nvcf/platform=true", () => {
        assert.deepEqual(gatewayClass().inputs.spec, { controllerName: "gateway.envoyproxy.io/gatewayclass-controller" });
        assert.ok(dependsOn(gatewayClass(), eg()));
        assert.equal(gateways().length, 1);
        const gw = gateways()[0];
        assert.deepEqual(gw.inputs.metadata, { name: "nvcf-gateway", namespace: "envoy-gateway" });
        const selector = { namespaces: { from: "Selector", selector: { matchLabels: { "nvcf/platform": "true" } } } };
        assert.deepEqual(gw.inputs.spec, {
            gatewayClassName: "eg",
            listeners: [
                { name: "http", protocol: "HTTP", port: 80, allowedRoutes: selector },
                { name: "tcp", protocol: "TCP", port: 10081, allowedRoutes: selector },
            ],
        });
        assert.ok(dependsOn(gw, gatewayClass()) && dependsOn(gw, eg()));
        assert.ok(dependsOn(gw, named(on, "control-plane-namespaces-envoy-gateway")));
    });
    test("the stack owns the controller's and the Gateway's namespaces; the Gateway's carries nvcf/platform=true", () => {
        const ns = (n: string) => named(on, `control-plane-namespaces-${n}`).inputs.metadata as { labels: Record<string, string> };
        assert.equal(ns("envoy-gateway").labels["nvcf/platform"], "true");
        assert.equal(ns("envoy-gateway-system").labels["nvcf/platform"], undefined);
    });
    test("the releases whose routes attach depend on the Gateway, so destroy removes it after them; the others do not wait for it", () => {
        const gw = gateways()[0];
        const cpReleases = releases(on).filter((r) => r.name.startsWith("control-plane-") && r.inputs.name !== "eg");
        assert.ok(cpReleases.length > 20);
        const withRoutes = ["ingress", "admin-issuer-proxy"];
        for (const r of cpReleases) assert.equal(dependsOn(r, gw), withRoutes.includes(String(r.inputs.name)), String(r.inputs.name));
    });
    test("a chart mirror replaces Envoy Gateway's public repository; its values are passed through", async () => {
        const mirrored = await run({
            [`${P}:controlPlane`]: {
                ingress: {
                    gatewayApi: {
                        install: {
                            ...GATEWAY_ON.ingress.gatewayApi.install,
                            envoyGateway: { version: "v1.2.1", repository: "oci://mirror.example.com/envoyproxy", values: { a: 1 } },
                        },
                    },
                },
            },
        });
        assert.equal(release(mirrored, "eg").inputs.chart, "oci://mirror.example.com/envoyproxy/gateway-helm");
        assert.deepEqual(release(mirrored, "eg").inputs.values, { a: 1 });
    });
    test("a structured key set as one string stops the program naming the key and the type, before anything is created", async () => {
        const { config, secretKeys } = devConfig();
        const { error, resources } = await runProgramExpectingError(
            withConfig(config, { [`${P}:checks`]: "healthGate:\n  timeoutSeconds: 30" }),
            secretKeys,
        );
        assert.match(error.message, /nvcf-self-managed:checks: Invalid input: expected object, received string/);
        assert.doesNotMatch(error.message, /is not a valid JSON object/);
        assert.deepEqual(resources, []);
    });
    test("an unreadable CRD manifest stops the program, naming the key, before anything is created", async () => {
        const { config, secretKeys } = devConfig();
        const bad = withConfig(config, {
            [`${P}:controlPlane`]: {
                ingress: { gatewayApi: { install: { ...GATEWAY_ON.ingress.gatewayApi.install, crdsManifest: "/nonexistent.yaml" } } },
            },
        });
        const { error, resources } = await runProgramExpectingError(bad, secretKeys);
        assert.match(error.message, /controlPlane\.ingress\.gatewayApi\.install\.crdsManifest: cannot read \/nonexistent\.yaml/);
        // Nothing at all: no provider, namespace or pull secret (holding the NGC key) was declared first.
        assert.deepEqual(
            resources.map((r) => `${r.type} ${r.name}`),
            [],
        );
    });
});

describe("the Gateway API CRD file: v1.2.0 or newer, experimental channel, every kind the routes create", () => {
    const fixture = fs.readFileSync(CRDS, "utf8");
    const crd = (plural: string, channel = "experimental", version = "v1.2.0") =>
        ({
            kind: "CustomResourceDefinition",
            apiVersion: "apiextensions.k8s.io/v1",
            metadata: {
                name: `${plural}.gateway.networking.k8s.io`,
                annotations: { "gateway.networking.k8s.io/channel": channel, "gateway.networking.k8s.io/bundle-version": version },
            },
        }) as const;
    const all = (channel?: string, version?: string) => GATEWAY_API_CRDS.map((c) => crd(c, channel, version));

    test("the suite's copy of v1.2.0's experimental-install.yaml passes", () => {
        const objects = fixture.split(/^---$/m).filter((d) => d.includes("kind: CustomResourceDefinition"));
        assert.equal(objects.length, GATEWAY_API_CRDS.length);
        assert.equal(gatewayApiManifestProblem(all()), undefined);
        assert.equal(gatewayApiManifestProblem(all("experimental", "v1.3.0")), undefined, "a newer release keeps the kinds");
    });

    test("the standard channel (no TCPRoute), an older release, or a missing CRD is named", () => {
        const standard = GATEWAY_API_CRDS.filter((c) => c !== "tcproutes").map((c) => crd(c, "standard"));
        assert.equal(
            gatewayApiManifestProblem(standard),
            "lacks the CustomResourceDefinitions tcproutes.gateway.networking.k8s.io; " +
                "is the standard channel (gateway.networking.k8s.io/channel), not experimental",
        );
        assert.equal(
            gatewayApiManifestProblem(all("experimental", "v1.1.0")),
            "is Gateway API v1.1.0 (gateway.networking.k8s.io/bundle-version), older than v1.2.0",
        );
        assert.match(
            gatewayApiManifestProblem(all().filter((o) => !o.metadata.name.startsWith("referencegrants"))) ?? "",
            /^lacks the CustomResourceDefinitions referencegrants\.gateway\.networking\.k8s\.io$/,
        );
    });

    test("the program stops on a standard-channel file, naming the key, the file and what is missing", async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-crds-"));
        try {
            const file = path.join(dir, "standard-install.yaml");
            fs.writeFileSync(file, fixture.replace(/channel: experimental/g, "channel: standard"));
            const { config, secretKeys } = devConfig();
            const bad = withConfig(config, {
                [`${P}:controlPlane`]: {
                    ingress: { gatewayApi: { install: { ...GATEWAY_ON.ingress.gatewayApi.install, crdsManifest: file } } },
                },
            });
            const { error } = await runProgramExpectingError(bad, secretKeys);
            assert.match(
                error.message,
                /controlPlane\.ingress\.gatewayApi\.install\.crdsManifest: .*standard-install\.yaml is the standard channel \(gateway\.networking\.k8s\.io\/channel\), not experimental; use v1\.2\.0's experimental-install\.yaml/,
            );
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});

describe("registry.pullSecret.mode: kyverno", () => {
    let on: ProgramRun;
    const PLANES = [
        { clusterName: "gpu-a", cluster: { sameAsControlPlane: true }, addons: { kaiScheduler: { enabled: true } } },
        { clusterName: "gpu-b", cluster: { context: "gpu-b" } },
    ];
    before(async () => {
        on = await run({ [`${P}:registry`]: KYVERNO_ON, [`${P}:computePlanes`]: PLANES });
    });
    const policy = (name: string) =>
        byType(on, "kubernetes:kyverno.io/v1:ClusterPolicy").find((p) => (p.inputs.metadata as { name: string }).name === name)!;

    test("installs Kyverno once per cluster, pinned, in its own namespace (which gets no pull secret)", () => {
        const kyverno = releases(on).filter((r) => r.inputs.name === "kyverno");
        assert.deepEqual(kyverno.map((r) => r.name).sort(), ["compute-plane-gpu-b-kyverno", "control-plane-kyverno"]);
        for (const r of kyverno) {
            assert.equal(r.inputs.namespace, "kyverno");
            assert.equal(r.inputs.version, "3.3.4");
            assert.equal(r.inputs.chart, "kyverno");
            assert.deepEqual(r.inputs.repositoryOpts, { repo: "https://kyverno.github.io/kyverno" });
        }
        assert.equal(on.resources.filter((r) => r.type === "kubernetes:core/v1:Secret" && r.name.endsWith("-kyverno")).length, 0);
    });
    test("the control plane's ClusterPolicy adds the pull secret to every Pod of the namespaces holding it, after the secrets and Kyverno", () => {
        const p = policy("nvcf-pull-secret");
        const secrets = on.resources.filter(
            (r) => r.type === "kubernetes:core/v1:Secret" && r.name.startsWith("control-plane-pull-secrets-"),
        );
        const rule = (p.inputs.spec as any).rules[0];
        assert.deepEqual(
            [...rule.match.any[0].resources.namespaces].sort(),
            secrets.map((s) => (s.inputs.metadata as { namespace: string }).namespace).sort(),
        );
        assert.deepEqual(rule.match.any[0].resources.kinds, ["Pod"]);
        assert.deepEqual(rule.mutate, { patchStrategicMerge: { spec: { imagePullSecrets: [{ name: SECRET }] } } });
        for (const s of secrets) assert.ok(dependsOn(p, s), `policy after ${s.name}`);
        assert.ok(dependsOn(p, named(on, "control-plane-kyverno")));
    });
    test("every control-plane release comes after the policy, so its pods are admitted with the secret", () => {
        const p = policy("nvcf-pull-secret");
        for (const r of releases(on).filter((x) => x.name.startsWith("control-plane-") && x.inputs.name !== "kyverno"))
            assert.ok(dependsOn(r, p), String(r.inputs.name));
    });
    test("each compute plane has its own policy over its namespaces; the add-ons and the operator come after it", () => {
        for (const plane of ["gpu-a", "gpu-b"]) {
            const p = policy(`nvcf-pull-secret-${plane}`);
            assert.deepEqual(
                [...(p.inputs.spec as any).rules[0].match.any[0].resources.namespaces].sort(),
                plane === "gpu-a"
                    ? ["kai-scheduler", "nvca-operator", "nvca-system", "nvcf-backend"]
                    : ["nvca-operator", "nvca-system", "nvcf-backend"],
            );
            assert.ok(dependsOn(named(on, `compute-plane-${plane}-nvca-operator`), p));
        }
        assert.ok(dependsOn(named(on, "compute-plane-gpu-a-kai-scheduler"), policy("nvcf-pull-secret-gpu-a")));
        // On its own cluster a plane's policy waits for its Kyverno; on the control plane's, for the control plane's.
        assert.ok(dependsOn(policy("nvcf-pull-secret-gpu-b"), named(on, "compute-plane-gpu-b-kyverno")));
        assert.ok(dependsOn(policy("nvcf-pull-secret-gpu-a"), named(on, "control-plane-kyverno")));
    });
    test("the charts' values no longer name the stack's secret, except NVCA's, whose mirror forwards it to function namespaces", () => {
        for (const r of releases(on)) {
            if (r.inputs.name === "nvca-operator") continue;
            assert.ok(!mentions(r.inputs.values, SECRET), `${String(r.inputs.name)} values`);
        }
        for (const plane of ["gpu-a", "gpu-b"]) {
            const values = named(on, `compute-plane-${plane}-nvca-operator`).inputs.values as { imagePullSecrets?: unknown };
            assert.deepEqual(values.imagePullSecrets, [{ name: SECRET }]);
        }
    });
    test("the user's own imagePullSecrets stay in the values", async () => {
        const own = await run({
            [`${P}:registry`]: { pullSecret: { mode: "kyverno" } },
            [`${P}:controlPlane`]: { global: { imagePullSecrets: [{ name: "my-mirror" }] } },
        });
        assert.deepEqual(valuesOf(own, "api").api.imagePullSecrets, [{ name: "my-mirror" }]);
        assert.ok(!mentions(valuesOf(own, "api"), SECRET));
        // Kyverno already present: a policy, no release.
        assert.ok(!releases(own).some((r) => r.inputs.name === "kyverno"));
        assert.equal(byType(own, "kubernetes:kyverno.io/v1:ClusterPolicy").length, 1);
    });
});
