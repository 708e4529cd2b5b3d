/**
 * The OpenBao stage's side of the runbook: the JWT plugin's bridge and versioned modes around a
 * targeted update of OpenBao alone, and the checks of its members between them. The member-by-
 * member rollout and the JWT mount checks are the OpenBao rollout's (its resources, when the
 * program has them, are updated with the release); this module only finds them, switches the
 * mode, and checks what the runbook checks after each member: unsealed, one active, the original
 * cluster ID, and every member on the new template.
 */
import type { CheckResult } from "../../../components/health/checks";
import { getObject, listItems, type Kube } from "../../../components/health/kube-client";
import { excerpt } from "../../../components/providers/http";
import { controlPlaneSchema } from "../../../config/schema";
import type { Settings } from "../../../config/settings";

export const OPENBAO_SERVER = { namespace: "vault-system", statefulSet: "openbao-server", portName: "http", port: 8200 } as const;

/** The stack-config path of the JWT plugin lifecycle (the bundle's `openbao.jwtPluginLifecycle.mode`). */
export const LIFECYCLE_MODE_PATH = "controlPlane.openbao.jwtPluginLifecycle.mode";

/** `openbao.jwtPluginLifecycle.mode` as the stack sets it, where the program has the setting. */
export function lifecycleMode(settings: Settings): string | undefined {
    const openbao = settings.controlPlane.openbao as { jwtPluginLifecycle?: { mode?: unknown } };
    return typeof openbao.jwtPluginLifecycle?.mode === "string" ? openbao.jwtPluginLifecycle.mode : undefined;
}

/** What the OpenBao stage can drive in this program. */
export interface OpenBaoStageSupport {
    /** The program takes `openbao.jwtPluginLifecycle.mode`, so the stage goes through bridge, then versioned. */
    readonly lifecycle: boolean;
    /** A resource updated with the openbao-server release: the rollout and the JWT baseline, when the program has them. */
    isStageResource(type: string): boolean;
}

/** The OpenBao rollout's resources: every `nvcf:OpenBao*` dynamic resource but the grant revocation (which follows the core services). */
export function isOpenBaoRolloutType(type: string): boolean {
    return /^pulumi-nodejs:dynamic\/nvcf:OpenBao/.test(type) && type !== "pulumi-nodejs:dynamic/nvcf:OpenBaoGrantRevocation";
}

/** Reads from the config schema whether the program has the JWT plugin lifecycle. */
export function openBaoStageSupport(): OpenBaoStageSupport {
    const lifecycle = controlPlaneSchema.safeParse({ openbao: { jwtPluginLifecycle: { mode: "bridge" } } }).success;
    return { lifecycle, isStageResource: isOpenBaoRolloutType };
}

interface Member {
    readonly pod: string;
    readonly initialized?: boolean;
    readonly sealed?: boolean;
    readonly standby?: boolean;
    readonly clusterId?: string;
    readonly error?: string;
}

interface PodObject {
    metadata?: { name?: string };
    spec?: { containers?: { ports?: { name?: string; containerPort?: number }[] }[] };
}

/**
 * Each member's `GET /v1/sys/health`, through the API server's pod proxy to that pod. The query
 * makes every state answer 200, so a sealed or standby member is told apart by its body.
 */
async function members(kube: Kube, scheme: "http" | "https"): Promise<Member[]> {
    const { namespace, statefulSet } = OPENBAO_SERVER;
    const pods = ((await listItems(kube, `/api/v1/namespaces/${namespace}/pods`)) as PodObject[]).filter((p) =>
        new RegExp(`^${statefulSet}-\\d+$`).test(p.metadata?.name ?? ""),
    );
    const out: Member[] = [];
    for (const p of pods) {
        const pod = p.metadata!.name!;
        const port =
            p.spec?.containers?.flatMap((c) => c.ports ?? []).find((x) => x.name === OPENBAO_SERVER.portName)?.containerPort ??
            OPENBAO_SERVER.port;
        const path = `/api/v1/namespaces/${namespace}/pods/${scheme === "https" ? "https:" : ""}${pod}:${port}/proxy/v1/sys/health?standbyok=true&perfstandbyok=true&sealedcode=200&uninitcode=200`;
        try {
            const res = await kube.request("GET", path);
            const b = res.body as { initialized?: unknown; sealed?: unknown; standby?: unknown; cluster_id?: unknown } | undefined;
            if (res.status !== 200 || typeof b?.sealed !== "boolean" || typeof b.initialized !== "boolean") {
                out.push({ pod, error: `sys/health answered HTTP ${res.status}: ${excerpt(res.text, 120) || "no body"}` });
                continue;
            }
            out.push({
                pod,
                initialized: b.initialized,
                sealed: b.sealed,
                standby: b.standby === true,
                ...(typeof b.cluster_id === "string" && b.cluster_id ? { clusterId: b.cluster_id } : {}),
            });
        } catch (error) {
            out.push({ pod, error: (error as Error).message });
        }
    }
    return out.sort((a, b) => a.pod.localeCompare(b.pod, undefined, { numeric: true }));
}

/** The cluster ID every unsealed member reports, or undefined when they do not agree on one (or none answers). */
export async function openBaoClusterId(kube: Kube, scheme: "http" | "https"): Promise<string | undefined> {
    const ids = new Set((await members(kube, scheme)).map((m) => m.clusterId).filter((id): id is string => !!id));
    return ids.size === 1 ? [...ids][0] : undefined;
}

/**
 * The members after a change: every one initialised and unsealed, exactly one active, all on the
 * cluster ID captured before the stage, and the StatefulSet's `updatedReplicas` equal to its
 * replicas (under OnDelete, `currentRevision` may lag; the runbook says not to trust it).
 */
export async function openBaoMembersChecked(
    kube: Kube,
    scheme: "http" | "https",
    baselineClusterId: string | undefined,
): Promise<CheckResult[]> {
    const { namespace, statefulSet } = OPENBAO_SERVER;
    const status = `kubectl -n ${namespace} exec <pod> -c openbao -- sh -c 'BAO_ADDR=http://127.0.0.1:8200 bao status'`;
    const found = await members(kube, scheme);
    const problems: string[] = [];
    if (found.length === 0) problems.push(`no member pod ${statefulSet}-<n> in ${namespace}`);
    for (const m of found) {
        if (m.error) problems.push(`${m.pod}: ${m.error}`);
        else if (!m.initialized) problems.push(`${m.pod} is not initialised`);
        else if (m.sealed) problems.push(`${m.pod} is sealed`);
        else if (baselineClusterId && m.clusterId !== baselineClusterId)
            problems.push(`${m.pod} reports cluster ID ${m.clusterId ?? "none"}, not the original ${baselineClusterId}`);
    }
    const active = found.filter((m) => !m.error && m.initialized && !m.sealed && !m.standby);
    if (problems.length === 0 && active.length !== 1)
        problems.push(`${active.length} active members (${active.map((m) => m.pod).join(", ") || "none"}), not one`);
    const results: CheckResult[] = [
        problems.length === 0
            ? {
                  name: "openbao-members",
                  ok: true,
                  detail: `${found.length} member${found.length === 1 ? "" : "s"} unsealed, ${active[0].pod} active${baselineClusterId ? `, cluster ID ${baselineClusterId}` : ""}`,
                  fix: "",
              }
            : {
                  name: "openbao-members",
                  ok: false,
                  detail: problems.join("; "),
                  fix: `never go on to the next member while one is sealed or on another cluster: ${status}, and NVIDIA's OpenBao recovery steps`,
              },
    ];
    const sts = await getObject(kube, `/apis/apps/v1/namespaces/${namespace}/statefulsets/${statefulSet}`);
    const want = sts?.spec?.replicas ?? 1;
    const updated = sts?.status?.updatedReplicas ?? 0;
    const current = (sts?.status?.observedGeneration ?? 0) >= (sts?.metadata?.generation ?? 0);
    results.push(
        sts && updated === want && current
            ? { name: "openbao-rollout", ok: true, detail: `every member runs the new template (${updated}/${want} updated)`, fix: "" }
            : {
                  name: "openbao-rollout",
                  ok: false,
                  detail: sts
                      ? `${updated}/${want} members run the new template${current ? "" : " (the StatefulSet controller has not seen the change yet)"}; its update strategy is OnDelete, so Helm replaced none`
                      : `the StatefulSet ${namespace}/${statefulSet} does not exist`,
                  fix:
                      `replace the members one at a time, standbys first, each only once the one before is Ready and unsealed ` +
                      `(kubectl -n ${namespace} delete pod <standby>), the active one last after a step-down (bao operator step-down); ` +
                      `then run the upgrade again, which resumes here (kubectl -n ${namespace} get statefulset ${statefulSet} -o jsonpath='{.status.updatedReplicas}/{.spec.replicas}')`,
              },
    );
    return results;
}
