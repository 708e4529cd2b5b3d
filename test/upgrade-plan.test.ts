import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { describeStep, needsDrain, planStages, stageOf, type PlannedStep } from "../scripts/upgrade/stages";
import { stepOf } from "../scripts/upgrade/engine";
import { isOpenBaoStageType } from "../scripts/upgrade/openbao";
import { devConfig, runProgram, withConfig, PROJECT, type ProgramRun, type RecordedResource } from "./support/harness";

/** The dev stack with one GPU cluster on the control plane's cluster: the URNs the real program registers. */
const PLANE = { clusterName: "gpu-a", cluster: { sameAsControlPlane: true } };
const PLANES = [PLANE.clusterName];
let run: ProgramRun;

before(async () => {
    const { config, secretKeys } = devConfig();
    run = await runProgram(withConfig(config, { [`${PROJECT}:computePlanes`]: [PLANE] }), secretKeys);
});

const RELEASE = "kubernetes:helm.sh/v3:Release";
const releaseNamed = (name: string, plane = false): RecordedResource => {
    const found = run.resources.find((r) => r.type === RELEASE && r.inputs.name === name && r.name.startsWith("compute-plane-") === plane);
    assert.ok(found, `release ${name}`);
    return found;
};
/** A preview's update of a release from one chart version to another. */
const bump = (name: string, to: string, plane = false): PlannedStep => {
    const r = releaseNamed(name, plane);
    return { urn: r.urn, type: r.type, op: "update", release: name, oldVersion: String(r.inputs.version), newVersion: to };
};
const update = (r: RecordedResource): PlannedStep => ({ urn: r.urn, type: r.type, op: "update" });
const receipt = () => update(run.resources.find((r) => r.urn.endsWith("::bundle-receipt"))!);
const byStage = (steps: PlannedStep[]) =>
    Object.fromEntries(
        [...planStages(steps, PLANES)].map(([stage, p]) => [stage, p.steps.map((s) => s.release ?? s.urn.split("::").pop())]),
    );

describe("stage planning from a preview of the real program's resources", () => {
    test("one release: a core service alone goes to the core stage, with the receipt, and needs no drain", () => {
        const steps = [bump("api", "1.25.2"), receipt()];
        assert.deepEqual(byStage(steps), { core: ["api"], receipt: ["bundle-receipt"] });
        assert.equal(needsDrain(planStages(steps, PLANES)), false);
    });

    test("a whole bundle: every Helm release of each cluster goes to its runbook stage", () => {
        const steps = [
            ...run.resources
                .filter((r) => r.type === RELEASE)
                .map((r) => bump(String(r.inputs.name), "9.9.9", r.name.startsWith("compute-plane-"))),
            receipt(),
        ];
        const plan = byStage(steps);
        assert.deepEqual(plan["compute-planes"], ["csi-driver-smb", "nvca-operator"]);
        assert.deepEqual(plan.openbao, ["openbao-server"]);
        assert.deepEqual([...plan.dependencies].sort(), ["cassandra", "cert-manager", "nats"]);
        assert.deepEqual(
            [...plan.core].sort(),
            [
                "admin-issuer-proxy",
                "api",
                "api-keys",
                "ess-api",
                "grpc-proxy",
                "ingress",
                "invocation-service",
                "nats-auth-callout-service",
                "notary-service",
                "nvct-api",
                "ratelimiter",
                "reval",
                "sis",
            ].sort(),
        );
        assert.deepEqual(
            [...plan.observability].sort(),
            [
                "default-monitors",
                "function-autoscaler",
                "opentelemetry-operator",
                "otel-collector",
                "prometheus-operator-crds",
                "state-metrics",
                "victoria-metrics",
            ].sort(),
        );
        assert.deepEqual(plan.receipt, ["bundle-receipt"]);
        assert.equal(needsDrain(planStages(steps, PLANES)), true, "NATS, the gRPC proxy and the invocation service restart");
    });

    test("compute planes only: every resource of the GPU cluster, nothing of the control plane", () => {
        // Its Kubernetes provider is no target: the engine takes providers along by itself.
        const plane = run.resources.filter(
            (r) => r.name.startsWith("compute-plane-gpu-a-") && r.custom && !r.type.startsWith("pulumi:providers:"),
        );
        const steps = [...plane.map(update), receipt()];
        const plan = planStages(steps, PLANES);
        assert.deepEqual([...plan.keys()].sort(), ["compute-planes", "receipt"]);
        assert.equal(plan.get("compute-planes")!.urns.length, plane.length);
        assert.ok(
            plane.some((r) => r.type === "pulumi-nodejs:dynamic/nvcf:ClusterRegistration"),
            "the registration is the plane's",
        );
        assert.equal(needsDrain(plan), false);
    });

    test("the control plane's namespaces, pull secrets and preflight come before its first file; its health gate and the grant revocation after", () => {
        const of = (type: string, name: string) =>
            stageOf(update(run.resources.find((r) => r.type === type && r.urn.endsWith(`::${name}`))!), PLANES);
        assert.equal(of("kubernetes:core/v1:Namespace", "control-plane-namespaces-nvcf"), "dependencies");
        assert.equal(of("kubernetes:core/v1:Secret", "control-plane-pull-secrets-nvcf"), "dependencies");
        assert.equal(of("pulumi-nodejs:dynamic/nvcf:Preflight", "control-plane-preflight"), "dependencies");
        assert.equal(of("pulumi-nodejs:dynamic/nvcf:HealthGate", "control-plane-health-gate"), "receipt");
        assert.equal(
            of("pulumi-nodejs:dynamic/nvcf:SmokeCheck", "control-plane-smoke"),
            "receipt",
            "after the gate, against the upgraded releases",
        );
        assert.equal(of("pulumi-nodejs:dynamic/nvcf:HealthGate", "compute-plane-gpu-a-health-gate"), "compute-planes");
        const revocation =
            "urn:pulumi:dev::nvcf-self-managed::nvcf:control-plane:ControlPlane$nvcf:openbao:GrantRevocation$pulumi-nodejs:dynamic/nvcf:OpenBaoGrantRevocation::x";
        // In OpenBao's own stage: the release's migrations Job recreates the grant, so the revocation follows it at once.
        assert.equal(
            stageOf({ urn: revocation, type: "pulumi-nodejs:dynamic/nvcf:OpenBaoGrantRevocation", op: "update" }, PLANES),
            "openbao",
        );
    });

    test("the OpenBao rollout, baseline and grant revocation go with OpenBao; providers, the stack and reads go with nothing", () => {
        const cp = "urn:pulumi:dev::nvcf-self-managed::nvcf:control-plane:ControlPlane$";
        for (const type of [
            "pulumi-nodejs:dynamic/nvcf:OpenBaoRollout",
            "pulumi-nodejs:dynamic/nvcf:OpenBaoJwtBaseline",
            "pulumi-nodejs:dynamic/nvcf:OpenBaoGrantRevocation",
        ]) {
            assert.ok(isOpenBaoStageType(type));
            assert.equal(stageOf({ urn: `${cp}${type}::x`, type, op: "create" }, PLANES), "openbao");
        }
        assert.equal(
            stageOf(
                { urn: "urn:pulumi:dev::p::pulumi:providers:kubernetes::control-plane", type: "pulumi:providers:kubernetes", op: "update" },
                PLANES,
            ),
            undefined,
        );
        assert.equal(
            stageOf({ urn: "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev", type: "pulumi:pulumi:Stack", op: "update" }, PLANES),
            undefined,
        );
        assert.equal(stageOf({ ...bump("nats", "1.0.0"), op: "read" }, PLANES), undefined);
    });

    test("a replacement is several steps of one URN: targeted once", () => {
        const r = releaseNamed("api");
        const steps = ["create-replacement", "replace", "delete-replaced"].map((op) => ({ urn: r.urn, type: r.type, op, release: "api" }));
        assert.deepEqual(planStages(steps, PLANES).get("core")!.urns, [r.urn]);
    });

    test("the engine's step events become planned steps: ops without a change are left out, a release names its versions", () => {
        const r = releaseNamed("nats");
        const event = (op: string) =>
            ({
                sequence: 1,
                timestamp: 0,
                resourcePreEvent: {
                    metadata: {
                        op,
                        urn: r.urn,
                        type: r.type,
                        provider: "",
                        old: {
                            type: r.type,
                            urn: r.urn,
                            id: "x",
                            parent: "",
                            inputs: { name: "nats", version: "0.7.1" },
                            outputs: {},
                            provider: "",
                        },
                        new: {
                            type: r.type,
                            urn: r.urn,
                            id: "x",
                            parent: "",
                            inputs: { name: "nats", version: "0.7.2" },
                            outputs: {},
                            provider: "",
                        },
                    },
                },
            }) as never;
        assert.equal(stepOf(event("same")), undefined);
        assert.equal(stepOf(event("read")), undefined);
        const step = stepOf(event("update"))!;
        assert.deepEqual(step, { urn: r.urn, type: r.type, op: "update", release: "nats", oldVersion: "0.7.1", newVersion: "0.7.2" });
        assert.equal(describeStep(step), "update release nats 0.7.1 -> 0.7.2");
    });
});
