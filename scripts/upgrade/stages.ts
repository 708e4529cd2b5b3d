/**
 * The staged upgrade's stages, in NVIDIA's runbook order, and which stage each change of a
 * whole-stack preview belongs to. Pure: the planner takes the preview's steps, the tests give
 * it made-up ones.
 */
import { catalogEntry, OPENBAO, RELEASE_NAMES, type Phase } from "../../components/catalog/control-plane";
import { isOpenBaoStageType } from "./openbao";

export const STAGES = [
    {
        id: "preflight",
        title: "preflight",
        does: "checks every Helm release is deployed, reads the installed bundle release, refuses a downgrade",
        runbook: "Before starting",
    },
    {
        id: "compute-planes",
        title: "compute planes",
        does: "upgrades every GPU cluster (its prerequisites, add-ons and NVCA operator), then waits for a healthy NVCFBackend and Ready operator and agent pods",
        runbook: "3. Upgrade the existing compute plane",
    },
    {
        id: "drain",
        title: "drain gate",
        does: "before anything restarts NATS, the gRPC proxy or the invocation service: every single-replica memory stream on every NATS server is present and empty (and each function queue given is empty)",
        runbook: "4. Drain pending work",
    },
    {
        id: "openbao",
        title: "OpenBao",
        does: "OpenBao alone with its member-by-member rollout (and, with openbao.jwtPluginLifecycle.mode, the JWT mount checks against the baseline), then the admin issuer grant revoked again when the proxy is off; no JWT plugin mode is switched, as no chart of the pinned bundle reads one",
        runbook: "5. OpenBao bridge before dependency migrations",
    },
    {
        id: "dependencies",
        title: "dependencies (01)",
        does: "the bundle's 01-dependencies releases (and the stack's namespaces, pull secrets and cluster prerequisites), then ready workloads and succeeded migration Jobs",
        runbook: "5. Dependencies and migrations",
    },
    {
        id: "core",
        title: "core services (02)",
        does: "the bundle's 02-core releases, then ready workloads and Accepted HTTPRoutes",
        runbook: "5. Core services",
    },
    {
        id: "observability",
        title: "observability (00, 03)",
        does: "the monitoring stack and the 03-observability releases, then ready workloads",
        runbook: "",
    },
    {
        id: "receipt",
        title: "receipt",
        does: "the control plane's health gate and smoke check, the receipt ConfigMap nvcf/nvcf-upgrade-receipt, then checks it names the bundle release and every release's chart version",
        runbook: "5. Upgrade receipt",
    },
    {
        id: "final-preview",
        title: "final preview",
        does: "a whole-stack preview, which must show no change",
        runbook: "",
    },
] as const;

export type StageId = (typeof STAGES)[number]["id"];
export type Stage = (typeof STAGES)[number];

export function stageNumber(id: StageId): number {
    return STAGES.findIndex((s) => s.id === id) + 1;
}

/** One change of a preview: a resource and what happens to it. */
export interface PlannedStep {
    readonly urn: string;
    readonly type: string;
    readonly op: string;
    /** A Helm release's release name (inputs.name), old or new. */
    readonly release?: string;
    readonly oldVersion?: string;
    readonly newVersion?: string;
}

/** Releases whose restart drops work in flight (the runbook's NATS, gRPC proxy and invocation service rollovers). */
export const DRAIN_BEFORE = ["nats", "grpc-proxy", "invocation-service"] as const;

const HELM_RELEASE = "kubernetes:helm.sh/v3:Release";
const PHASE_STAGE: Record<Phase, StageId> = {
    "observability-infrastructure": "observability",
    dependencies: "dependencies",
    core: "core",
    observability: "observability",
};

/** A URN's resource type and name (`urn:pulumi:stack::project::parent-type$type::name`). */
export function urnParts(urn: string): { type: string; name: string } {
    const parts = urn.split("::");
    const types = (parts[2] ?? "").split("$");
    return { type: types[types.length - 1], name: parts.slice(3).join("::") };
}

/** The program's component names: every child is named after its component (`compute-plane-<cluster>-...`). */
export const NAMES = {
    computePlane: (cluster: string) => `compute-plane-${cluster}-`,
    bundle: "bundle-",
    gatewayDns: "gateway-dns",
} as const;

/**
 * The stage a change belongs to, or undefined for what the engine takes along by itself (the
 * stack, providers) and reads. Everything of a GPU cluster goes with the compute planes; a
 * control-plane Helm release with its helmfile file (OpenBao, and the rollout's resources, on
 * their own); the receipt, the control plane's health gate and its smoke check last; the grant revocation with
 * OpenBao (its migrations recreate the grant); DNS with the core services; the rest of the control plane (namespaces, pull secrets, Kyverno and
 * the Gateway prerequisites) before the dependencies, as Helmfile needs them before its first file.
 */
export function stageOf(step: PlannedStep, planes: readonly string[]): StageId | undefined {
    const { type, name } = urnParts(step.urn);
    if (step.op === "read" || step.op === "same" || type.startsWith("pulumi:providers:") || type === "pulumi:pulumi:Stack")
        return undefined;
    if (type === "pulumi:pulumi:StackReference") return undefined;
    if (planes.some((p) => name.startsWith(NAMES.computePlane(p)))) return "compute-planes";
    if (name.startsWith(NAMES.bundle)) return "receipt";
    if (name.startsWith(NAMES.gatewayDns)) return "core";
    if (isOpenBaoStageType(type)) return "openbao";
    // The smoke check runs after the gate, against the releases the stages before upgraded.
    if (type === "pulumi-nodejs:dynamic/nvcf:HealthGate" || type === "pulumi-nodejs:dynamic/nvcf:SmokeCheck") return "receipt";
    if (type === HELM_RELEASE && step.release && RELEASE_NAMES.includes(step.release)) {
        if (step.release === OPENBAO.release) return "openbao";
        return PHASE_STAGE[catalogEntry(step.release).phase];
    }
    return "dependencies";
}

/** What a stage changes: the URNs it targets and its Helm releases' version changes. */
export interface StagePlan {
    readonly urns: readonly string[];
    readonly steps: readonly PlannedStep[];
}

/** The preview's changes grouped by stage, each URN once (a replacement is several steps); `planes` are the GPU clusters' names. */
export function planStages(steps: readonly PlannedStep[], planes: readonly string[]): Map<StageId, StagePlan> {
    const byStage = new Map<StageId, PlannedStep[]>();
    const seen = new Set<string>();
    for (const step of steps) {
        const stage = stageOf(step, planes);
        if (!stage || seen.has(step.urn)) continue;
        seen.add(step.urn);
        byStage.set(stage, [...(byStage.get(stage) ?? []), step]);
    }
    return new Map([...byStage].map(([stage, s]) => [stage, { urns: s.map((x) => x.urn), steps: s }]));
}

/** Whether the stages after the drain gate restart something that drops work in flight. */
export function needsDrain(plan: Map<StageId, StagePlan>): boolean {
    return [...plan.values()].some((p) => p.steps.some((s) => s.release && (DRAIN_BEFORE as readonly string[]).includes(s.release)));
}

/** One line per change: `update release nats 0.7.1 -> 0.7.2`, or the resource's type and name. */
export function describeStep(step: PlannedStep): string {
    const { type, name } = urnParts(step.urn);
    if (step.release) {
        const versions =
            step.oldVersion && step.newVersion && step.oldVersion !== step.newVersion
                ? ` ${step.oldVersion} -> ${step.newVersion}`
                : step.newVersion && !step.oldVersion
                  ? ` ${step.newVersion}`
                  : "";
        return `${step.op} release ${step.release}${versions}`;
    }
    return `${step.op} ${type} ${name}`;
}
