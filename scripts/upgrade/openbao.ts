/**
 * The OpenBao stage's side of the runbook: the JWT plugin's bridge and versioned modes around a
 * targeted update of OpenBao alone, and the checks of its members between them. The member-by-
 * member rollout and the JWT mount checks are the OpenBao rollout's (its resources are updated
 * with the release); this module only finds them, and checks what the runbook checks after each
 * member through lib/openbao: unsealed, one active, the original cluster ID, and every
 * member on the new template.
 */
import { catalogEntry, OPENBAO } from "../../components/catalog/control-plane";
import type { CheckResult } from "../../lib/health/checks";
import { getObject, type Kube } from "../../lib/kubernetes/client";
import { MemberAnswerError, memberRevisions, openBaoMembers, type MemberHealth, type RolloutTarget } from "../../lib/openbao";
import type { Settings } from "../../config/settings";

/**
 * The OpenBao stage's resources besides the release: every `nvcf:OpenBao*` dynamic resource (the
 * rollout, the JWT baseline, and the grant revocation, which must follow the migrations Job that
 * each new revision of openbao-server runs).
 */
export function isOpenBaoStageType(type: string): boolean {
    return /^pulumi-nodejs:dynamic\/nvcf:OpenBao/.test(type);
}

/** One member's `sys/health`, or why it gave none (the error names the pod). */
type MemberLook = ({ readonly pod: string } & MemberHealth) | { readonly pod: string; readonly error: string };

interface PodObject {
    spec?: { containers?: { ports?: { name?: string; containerPort?: number }[] }[] };
}

/** OpenBao's StatefulSet where the program installs it. */
function target(settings: Settings): RolloutTarget {
    return { namespace: catalogEntry(OPENBAO.release).namespace(settings.controlPlane), statefulSet: OPENBAO.statefulSet };
}

/**
 * Each member pod's health, through the API server's pod proxy, on the port its container names
 * `http` (the chart's 8200); an unanswered member is a problem, not a stop. A missing pod is left
 * out: the rollout check says how many members run the new template.
 */
async function members(kube: Kube, settings: Settings, where: RolloutTarget, replicas: number): Promise<MemberLook[]> {
    const out: MemberLook[] = [];
    for (let ordinal = 0; ordinal < replicas; ordinal++) {
        const pod = `${where.statefulSet}-${ordinal}`;
        const object = (await getObject(kube, `/api/v1/namespaces/${where.namespace}/pods/${pod}`)) as PodObject | undefined;
        if (!object) continue;
        const port = object.spec?.containers?.flatMap((c) => c.ports ?? []).find((x) => x.name === "http")?.containerPort ?? OPENBAO.port;
        // sys/health needs no token: these checks never read the root-token Secret.
        const bao = openBaoMembers(
            kube,
            { namespace: where.namespace, port, scheme: settings.openbaoAccess.scheme },
            { missing: "the upgrade's member checks use no OpenBao token" },
        );
        try {
            out.push({ pod, ...(await bao.health(pod)) });
        } catch (error) {
            if (!(error instanceof MemberAnswerError)) throw error;
            out.push({ pod, error: error.message });
        }
    }
    return out;
}

/** The cluster ID every unsealed member reports, or undefined when they do not agree on one (or none answers). */
export async function openBaoClusterId(kube: Kube, settings: Settings): Promise<string | undefined> {
    const where = target(settings);
    const found = await members(kube, settings, where, (await memberRevisions(kube, where))?.replicas ?? 0);
    const ids = new Set(found.map((m) => ("clusterId" in m ? m.clusterId : undefined)).filter((id): id is string => !!id));
    return ids.size === 1 ? [...ids][0] : undefined;
}

/**
 * The members after a change: every one initialised and unsealed, exactly one active, all on the
 * cluster ID captured before the stage, and the StatefulSet's `updatedReplicas` equal to its
 * replicas (under OnDelete, `currentRevision` may lag; the runbook says not to trust it).
 */
export async function openBaoMembersChecked(kube: Kube, settings: Settings, baselineClusterId: string | undefined): Promise<CheckResult[]> {
    const where = target(settings);
    const { namespace, statefulSet } = where;
    const status = `kubectl -n ${namespace} exec <pod> -c openbao -- sh -c 'BAO_ADDR=http://127.0.0.1:8200 bao status'`;
    const revisions = await memberRevisions(kube, where);
    const found = await members(kube, settings, where, revisions?.replicas ?? 0);
    const problems: string[] = [];
    if (found.length === 0) problems.push(`no member pod ${statefulSet}-<n> in ${namespace}`);
    for (const m of found) {
        if ("error" in m) problems.push(m.error);
        else if (!m.initialized) problems.push(`${m.pod} is not initialised`);
        else if (m.sealed) problems.push(`${m.pod} is sealed`);
        else if (baselineClusterId && m.clusterId !== baselineClusterId)
            problems.push(`${m.pod} reports cluster ID ${m.clusterId ?? "none"}, not the original ${baselineClusterId}`);
    }
    const active = found.filter((m) => !("error" in m) && m.initialized && !m.sealed && !m.standby);
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
    const want = revisions?.replicas ?? 1;
    const updated = revisions?.updatedReplicas ?? 0;
    const current = revisions?.settled ?? false;
    results.push(
        revisions && updated === want && current
            ? { name: "openbao-rollout", ok: true, detail: `every member runs the new template (${updated}/${want} updated)`, fix: "" }
            : {
                  name: "openbao-rollout",
                  ok: false,
                  detail: revisions
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
