import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { ControlPlaneConfig } from "../../config/model/schema";
import type { ChecksConfig } from "../../config/model/checks-schema";
import { OPENBAO, type CatalogEntry } from "../catalog/control-plane";
import { HealthGate } from "../resources/cluster-checks";
import { clusterReach, type ClusterTarget } from "../resolve/clusters";
import { controlPlaneHealth } from "../plane/health-specs";
import type { ReleaseDriftCorrection } from "../resources/release-drift-correction";
import { SmokeCheck } from "../resources/smoke-check";
import { smokePlan } from "../../lib/smoke/platform";
import type { OpenBaoUpgradeArgs } from "./openbao-upgrade";
import type { CredentialRotations } from "./openbao";

/** What the checks after the releases look at: the environment, the checks' settings and the cluster. */
export interface CheckedControlPlane {
    readonly cp: ControlPlaneConfig;
    /** Unset: no check at all. */
    readonly checks?: ChecksConfig;
    readonly cluster: ClusterTarget;
    readonly enabled: readonly CatalogEntry[];
    /** Where OpenBao runs, when the stack installs it. */
    readonly openbao?: OpenBaoUpgradeArgs;
}

/** The releases as deployed: each release and the corrections of its objects. */
export interface Deployed {
    readonly releases: Readonly<Record<string, k8s.helm.v3.Release>>;
    readonly driftCorrections: Readonly<Record<string, ReleaseDriftCorrection>>;
}

/** Everything `pulumi up` changes on the control plane: the releases, then what writes into OpenBao and restarts their pods. */
export interface Settled extends Deployed, CredentialRotations {
    readonly grantRevocation?: pulumi.Resource;
    readonly openbaoRollout?: pulumi.Resource;
}

/** The control plane's health gate, after everything `pulumi up` changes there, when its checks are on. */
export function healthGate(name: string, on: CheckedControlPlane, after: Settled, parent: pulumi.Resource): HealthGate | undefined {
    const { cp, checks, openbao } = on;
    const healthSpec = checks
        ? controlPlaneHealth(
              cp,
              checks,
              on.enabled,
              openbao ? { namespace: openbao.namespace, pod: OPENBAO.pod, port: OPENBAO.port, access: openbao.access } : undefined,
          )
        : undefined;
    if (!checks || !healthSpec) return undefined;
    // After every release: a green `up` must mean a working control plane, not only deployed releases.
    return new HealthGate(
        `${name}-health-gate`,
        {
            cluster: "control plane",
            reach: clusterReach(on.cluster),
            health: healthSpec,
            timeoutSeconds: checks.healthGate.timeoutSeconds,
            pollSeconds: checks.healthGate.pollSeconds,
        },
        {
            parent,
            dependsOn: [
                ...Object.values(after.releases),
                ...(after.grantRevocation ? [after.grantRevocation] : []),
                ...(after.openbaoRollout ? [after.openbaoRollout] : []),
                ...(after.sidecarCredential ? [after.sidecarCredential] : []),
                ...(after.mekRotation ? [after.mekRotation] : []),
                ...(after.natsNkeyRotation ? [after.natsNkeyRotation] : []),
                ...(after.cassandraPasswordRotation ? [after.cassandraPasswordRotation] : []),
                ...Object.values(after.driftCorrections),
            ],
        },
    );
}

/** The smoke check after the releases (`checks.smoke`): the charts' helm tests and the platform check. */
export function smokeCheck(
    name: string,
    on: CheckedControlPlane,
    deployed: Deployed,
    gate: HealthGate | undefined,
    parent: pulumi.Resource,
): SmokeCheck | undefined {
    const smoke = on.checks ? smokePlan(on.cp.global.domain, on.checks.smoke) : undefined;
    if (!smoke) return undefined;
    const { releases, driftCorrections } = deployed;
    const all = [...Object.values(releases), ...Object.values(driftCorrections)];
    return new SmokeCheck(
        `${name}-smoke`,
        {
            reach: clusterReach(on.cluster),
            releases: pulumi.output(
                Object.values(releases).map((r) => ({
                    name: r.status.name,
                    namespace: r.status.namespace,
                    revision: r.status.revision,
                })),
            ),
            ...smoke,
        },
        // Beside the gate when Helm waits (each release's pods are ready, so its Services have endpoints);
        // without that wait, after the gate: a test Pod that starts before its Service has endpoints fails for nothing.
        { parent, dependsOn: on.cluster.skipAwait && gate ? [gate] : all },
    );
}
