import type * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import { addonDependencies, type AddonEntry } from "../catalog/compute-plane-addons";
import { declareRelease, releaseValues } from "../release/declare";
import type { PlaneFoundation } from "../plane/foundation";
import { NVCA_NAMESPACES } from "../../lib/contracts/nvca";
import { type NvcaTeardown } from "../resources/nvca-teardown";
import type { ComputePlaneConfig } from "../../config/model/compute-plane-schema";
import type { ComputePlaneVersions } from "../catalog/nvca-operator-values";
import type { ClusterTarget } from "../resolve/clusters";
import type { RegistryAccess } from "../resolve/registry";

/** What the add-ons' releases are made of: the plane's settings, its chart versions, where the charts come from. */
export interface AddonArgs {
    readonly plane: ComputePlaneConfig;
    readonly versions: ComputePlaneVersions;
    readonly registry: RegistryAccess;
    readonly cluster: Pick<ClusterTarget, "skipAwait">;
}

/**
 * The add-ons, as the bundle's 01-dependencies file installs them: each after its namespace,
 * its pull secret and what it needs; destroy removes them in reverse.
 */
export function addonReleases(
    name: string,
    args: AddonArgs,
    addons: readonly AddonEntry[],
    foundation: PlaneFoundation,
    teardown: NvcaTeardown,
    provider: k8s.Provider,
    parent: pulumi.Resource,
): Readonly<Record<string, k8s.helm.v3.Release>> {
    const { plane, registry } = args;
    const { namespaces, pullSecrets, afterPreflight, pullSecretPolicy: policy } = foundation;
    const addonDeps = addonDependencies(addons);
    const releases: Record<string, k8s.helm.v3.Release> = {};
    for (const entry of addons) {
        const namespace = entry.namespace(plane);
        const ns = namespaces.byName[namespace];
        const secret = pullSecrets?.byNamespace[namespace];
        releases[entry.name] = declareRelease(
            {
                logicalName: `${name}-${entry.name}`,
                entry,
                settings: plane,
                namespace: ns.metadata.name,
                version: args.versions.charts[entry.name],
                values: releaseValues(entry, { plane, imagePullSecrets: registry.imagePullSecrets }),
                sources: registry,
                skipAwait: args.cluster.skipAwait,
            },
            {
                parent,
                provider,
                dependsOn: [
                    ns,
                    ...(secret ? [secret] : []),
                    ...(policy ? [policy] : []),
                    ...(addonDeps.get(entry.name) ?? []).map((dep) => releases[dep]),
                    // Uninstalled before the teardown deletes the namespace that holds their Helm records.
                    ...((NVCA_NAMESPACES as readonly string[]).includes(namespace) ? [teardown] : []),
                    ...afterPreflight,
                ],
            },
        );
    }
    return releases;
}
