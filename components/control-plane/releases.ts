import type * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import type { ControlPlaneConfig, ReleaseOverride } from "../../config/model/schema";
import type { Namespaces } from "../kubernetes/namespaces";
import type { PullSecrets } from "../kubernetes/pull-secrets";
import { OPENBAO } from "../catalog/control-plane";
import type { RegistryAccess } from "../resolve/registry";
import { declareRelease } from "../release/declare";
import type { PlannedRelease } from "./plan";
import type { OpenBaoJwtBaseline } from "../resources/openbao-jwt-baseline";
import { openbaoPodTemplate } from "./openbao-upgrade";
import type { ReleaseGoal } from "../bundle/restart-warning";
import { ReleaseDriftCorrection } from "../resources/release-drift-correction";
import { clusterReach, type ClusterTarget } from "../resolve/clusters";

/** What the control plane's releases stand on: the foundation, the Gateways, and OpenBao's JWT baseline. */
export interface ReleaseFoundation {
    readonly cp: ControlPlaneConfig;
    readonly namespaces: Namespaces;
    readonly pullSecrets?: PullSecrets;
    /** The Kyverno pull-secret policy, when there is one. */
    readonly policy: readonly pulumi.Resource[];
    /** The Gateways the stack installs, when it does. */
    readonly gateways: readonly pulumi.Resource[];
    readonly afterPreflight: readonly pulumi.Resource[];
    readonly jwtBaseline?: OpenBaoJwtBaseline;
    readonly registry: RegistryAccess;
    readonly skipAwait: boolean;
}

/** The plan's releases as declared, with what each was given and OpenBao's pod template (for its rollout). */
export interface DeclaredReleases {
    readonly releases: Readonly<Record<string, k8s.helm.v3.Release>>;
    readonly goals: Readonly<Record<string, ReleaseGoal>>;
    readonly openbaoTemplate: Record<string, unknown>;
}

/**
 * Each release of the plan, after its namespace, its pull secret and the releases it needs. The
 * plan lists a release after its dependencies, so each can name their resources.
 */
export function declareReleases(
    name: string,
    plan: readonly PlannedRelease[],
    on: ReleaseFoundation,
    parent: pulumi.Resource,
): DeclaredReleases {
    const { cp, namespaces, pullSecrets, policy, gateways, afterPreflight, jwtBaseline } = on;
    const releases: Record<string, k8s.helm.v3.Release> = {};
    let openbaoTemplate: Record<string, unknown> = {};
    const goals: Record<string, ReleaseGoal> = {};
    for (const { entry, namespace, dependencies, version, values } of plan) {
        const ns = namespaces.byName[namespace];
        // Every release after the policy (its pods get the secret), those with routes after the Gateways; destroy reverses it.
        const dependsOn: pulumi.Resource[] = [
            ...(entry.writesToOtherNamespaces ? Object.values(namespaces.byName) : ns ? [ns] : []),
            ...(pullSecrets?.byNamespace[namespace] ? [pullSecrets.byNamespace[namespace]] : []),
            ...dependencies.map((dep) => releases[dep]),
            ...policy,
            ...(entry.attachesToGateways ? gateways : []),
            ...afterPreflight,
            ...(entry.name === OPENBAO.release && jwtBaseline ? [jwtBaseline] : []),
        ];
        goals[entry.name] = { version, values };
        if (entry.name === OPENBAO.release) openbaoTemplate = openbaoPodTemplate(entry.chart, version, values);
        releases[entry.name] = declareRelease(
            {
                logicalName: `${name}-${entry.name}`,
                entry,
                settings: cp,
                namespace: ns ? ns.metadata.name : namespace,
                version,
                values,
                sources: on.registry,
                skipAwait: on.skipAwait,
            },
            { parent, dependsOn },
        );
    }
    return { releases, goals, openbaoTemplate };
}

/** The releases whose objects `pulumi up` holds to what Helm recorded (`releases.<name>.drift: correct`), by release name. */
export function driftCorrections(
    name: string,
    plan: readonly PlannedRelease[],
    releaseOverrides: Readonly<Record<string, ReleaseOverride>>,
    cluster: ClusterTarget,
    releases: Readonly<Record<string, k8s.helm.v3.Release>>,
    parent: pulumi.Resource,
): Readonly<Record<string, ReleaseDriftCorrection>> {
    const corrections: Record<string, ReleaseDriftCorrection> = {};
    for (const { entry, namespace } of plan) {
        const override = releaseOverrides[entry.name];
        if (override?.drift !== "correct") continue;
        corrections[entry.name] = new ReleaseDriftCorrection(
            `${name}-${entry.name}-drift`,
            {
                reach: clusterReach(cluster),
                release: entry.name,
                namespace,
                revision: releases[entry.name].status.revision,
                ignore: override.driftIgnore ?? [],
                claims: override.driftCorrectClaims ?? [],
            },
            { parent, dependsOn: [releases[entry.name]] },
        );
    }
    return corrections;
}
