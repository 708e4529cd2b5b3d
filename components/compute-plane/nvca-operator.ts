import type * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import type { ComputePlaneConfig } from "../../config/model/compute-plane-schema";
import type { Namespaces } from "../kubernetes/namespaces";
import type { ClusterRegistration } from "../resources/cluster-registration";
import type { ClusterTarget } from "../resolve/clusters";
import type { RegistryAccess } from "../resolve/registry";
import { NVCA_OPERATOR, NVCA_OPERATOR_NAMESPACE } from "../catalog/compute-plane";
import { declareRelease, releaseValues } from "../release/declare";
import { defaultEndpoints, type ComputePlaneVersions } from "../catalog/nvca-operator-values";
import type { PlaneFoundation } from "../plane/foundation";
import type { ClusterReach } from "../../lib/cluster-access/reach";
import { NVCA_CRDS, NVCA_NAMESPACES } from "../../lib/contracts/nvca";
import { NvcaTeardown } from "../resources/nvca-teardown";

/** What the operator's release is made of: the plane, its versions, where its chart and images come from, the control plane's domain. */
export interface OperatorArgs {
    readonly plane: ComputePlaneConfig;
    readonly versions: ComputePlaneVersions;
    readonly registry: RegistryAccess;
    readonly image: { readonly registry: string; readonly repository: string };
    readonly domain: string;
    readonly cluster: Pick<ClusterTarget, "skipAwait">;
}

/**
 * What the operator's uninstall leaves: NVCA's CRDs and namespaces. Destroy runs it after the
 * operator's uninstall and the add-ons in NVCA's namespaces (the topology releases), which
 * depend on it: they go as the cluster document removes them, after every release recorded in them.
 */
export function nvcaTeardown(
    name: string,
    plane: ComputePlaneConfig,
    reach: pulumi.Input<ClusterReach>,
    namespaces: Namespaces,
    parent: pulumi.Resource,
): NvcaTeardown {
    return new NvcaTeardown(
        `${name}-nvca-teardown`,
        {
            clusterName: plane.clusterName,
            reach,
            crds: [...NVCA_CRDS],
            namespaces: [...NVCA_NAMESPACES],
            timeoutSeconds: plane.teardown.timeoutSeconds,
            forceFinalizers: plane.teardown.forceFinalizers,
        },
        { parent, dependsOn: Object.values(namespaces.byName) },
    );
}

/** What the NVCA operator waits for: everything else the plane declares. */
export interface BeforeOperator {
    readonly foundation: PlaneFoundation;
    readonly registration: ClusterRegistration;
    /** The inotify tuner and the SMB CSI driver. */
    readonly nodes: { readonly tuner: pulumi.Resource; readonly smb: pulumi.Resource };
    readonly addons: Readonly<Record<string, k8s.helm.v3.Release>>;
    readonly teardown: NvcaTeardown;
}

/** The NVCA operator's release, with the registration's ids; it depends on everything else, so destroy uninstalls it first. */
export function nvcaOperator(
    name: string,
    args: OperatorArgs,
    before: BeforeOperator,
    provider: k8s.Provider,
    parent: pulumi.Resource,
): k8s.helm.v3.Release {
    const { plane, registry } = args;
    const { foundation, registration, nodes } = before;
    const { namespaces, pullSecrets, afterPreflight, pullSecretPolicy: policy } = foundation;
    const operatorNamespace = namespaces.byName[NVCA_OPERATOR_NAMESPACE];
    return declareRelease(
        {
            logicalName: `${name}-nvca-operator`,
            entry: NVCA_OPERATOR,
            settings: plane,
            namespace: operatorNamespace.metadata.name,
            version: args.versions.charts[NVCA_OPERATOR.name],
            values: releaseValues(NVCA_OPERATOR, {
                plane,
                versions: args.versions,
                image: args.image,
                // The mirror copies these to the function pods' namespaces, which the policy does not cover.
                imagePullSecrets: [...registry.forwardedPullSecrets],
                endpoints: defaultEndpoints(plane, args.domain),
                clusterId: registration.clusterId,
                clusterGroupId: registration.clusterGroupId,
            }),
            sources: registry,
            skipAwait: args.cluster.skipAwait,
        },
        {
            parent,
            provider,
            // Uninstall before deregistering: the uninstall deletes the NVCFBackend, and ICMS refuses (409) while instances are active.
            // Nothing of the control plane's beyond the registration: its readiness probe answers without it.
            dependsOn: [
                registration,
                nodes.smb,
                nodes.tuner,
                // 02-nvca after 01-dependencies: the operator's gates and merge config name the add-ons.
                ...Object.values(before.addons),
                ...Object.values(namespaces.byName),
                ...Object.values(pullSecrets?.byNamespace ?? {}),
                ...(policy ? [policy] : []),
                before.teardown,
                ...afterPreflight,
            ],
        },
    );
}
