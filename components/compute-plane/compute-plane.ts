import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { ComputePlaneConfig } from "../../config/model/compute-plane-schema";
import { clusterProvider } from "../kubernetes/provider";
import { ClusterRegistration } from "../resources/cluster-registration";
import { clusterReach, type ClusterTarget } from "../resolve/clusters";
import type { RegistryAccess } from "../resolve/registry";
import { enabledAddons, type AddonEntry } from "../catalog/compute-plane-addons";
import { NVCA_OPERATOR_NAMESPACE } from "../catalog/compute-plane";
import { InotifyTuner } from "./inotify-tuner";
import type { ComputePlaneVersions } from "../catalog/nvca-operator-values";
import { SmbCsiDriver } from "./smb-csi-driver";
import { PULL_SECRET_POLICY } from "../kubernetes/pull-secret-policy";
import { planeFoundation, type PlaneFoundation } from "../plane/foundation";
import type { ChecksConfig } from "../../config/model/checks-schema";
import type { ClusterReach } from "../../lib/cluster-access/reach";
import { computePlaneHealth, computePlanePreflight } from "../plane/health-specs";
import { HealthGate, type Preflight } from "../resources/cluster-checks";
import type { NvcaTeardown } from "../resources/nvca-teardown";
import { addonReleases } from "./addons";
import { nvcaOperator, nvcaTeardown } from "./nvca-operator";

/** Namespaces the operator owns (it updates and deletes them) but whose pull secrets must exist before it starts. */
export const OPERATOR_MANAGED_NAMESPACES = ["nvca-system", "nvcf-backend"] as const;

export interface ComputePlaneArgs {
    /** The compute plane's settings (one `computePlanes` entry). */
    readonly plane: ComputePlaneConfig;
    /** The chart and image versions it installs: its bundle release's, or the plane's pins. */
    readonly versions: ComputePlaneVersions;
    /** How the provider and the registration reach the GPU cluster. */
    readonly cluster: ClusterTarget;
    /** The pull secret, the operator's `imagePullSecrets`, and where its chart comes from. */
    readonly registry: RegistryAccess;
    /** Where the NVCA images come from (the plane's own, else the control plane's). */
    readonly image: { readonly registry: string; readonly repository: string };
    /** The control plane's `global.domain`: the default ICMS, API Keys and worker endpoints. */
    readonly domain: string;
    /** What of the control plane the registration waits for (not the whole control plane): ICMS's path and the token's issuer. */
    readonly registrationNeeds: readonly pulumi.Resource[];
    /** The control plane's Kyverno release, when this plane shares its cluster and the stack installs Kyverno there. */
    readonly sharedKyverno?: pulumi.Resource;
    /** Preflight before the first release here and the health gate after the operator; unset: neither. */
    readonly checks?: ChecksConfig;
}

export interface ComputePlaneOutputs {
    readonly clusterName: string;
    /** ICMS's id of the registered cluster. */
    readonly clusterId: pulumi.Output<string>;
    readonly clusterGroupId: pulumi.Output<string>;
    /** The NVCA operator release's Helm status. */
    readonly operatorStatus: pulumi.Output<string>;
}

/**
 * One GPU cluster: its node prerequisites (inotify tuner, SMB CSI driver), pull secrets, the
 * registration with ICMS and the NVCA operator. The operator depends on everything else, so
 * destroy uninstalls it (draining the cluster) first and deregisters the cluster after it.
 */
export class ComputePlane extends pulumi.ComponentResource {
    /** The Kubernetes provider of the GPU cluster; every release here uses it. */
    readonly provider: k8s.Provider;
    /** The cluster's registration with ICMS: its cluster and group ids. */
    readonly registration: ClusterRegistration;
    /** The NVCA operator's release. */
    readonly operator: k8s.helm.v3.Release;
    /** The GPU scheduling add-ons the stack installs here, by release name. */
    readonly addons: Readonly<Record<string, k8s.helm.v3.Release>>;
    /** Preflight of the GPU cluster, when checks are on. */
    readonly preflight?: Preflight;
    /** The GPU cluster's health gate (NVCA reports Healthy), when checks are on. */
    readonly healthGate?: HealthGate;
    /** On destroy, removes what the operator's uninstall leaves (NVCA's CRDs and namespaces). */
    readonly teardown: NvcaTeardown;
    /** The plane's entry of the stack output `computePlanes`. */
    readonly outputs: ComputePlaneOutputs;

    constructor(name: string, args: ComputePlaneArgs, opts?: pulumi.ComponentResourceOptions) {
        super("nvcf:compute-plane:ComputePlane", name, {}, opts);
        const { plane, cluster } = args;
        const addons = enabledAddons(plane);

        this.provider = clusterProvider(`${name}-provider`, cluster, { parent: this });
        const at: PlaneCluster = { reach: clusterReach(cluster, plane.clusterName), label: `compute plane ${plane.clusterName}` };
        const foundation = computePlaneFoundation(name, args, addons, at, this, this.provider);
        this.preflight = foundation.preflight;
        const nodes = nodePrerequisites(name, args, foundation.afterPreflight, { parent: this, providers: [this.provider] });

        this.registration = clusterRegistration(name, args, this);
        this.teardown = nvcaTeardown(name, plane, at.reach, foundation.namespaces, this);
        this.addons = addonReleases(name, args, addons, foundation, this.teardown, this.provider, this);
        this.operator = nvcaOperator(
            name,
            args,
            { foundation, registration: this.registration, nodes, addons: this.addons, teardown: this.teardown },
            this.provider,
            this,
        );
        this.healthGate = healthGate(name, args, addons, at, [this.operator, ...Object.values(this.addons), nodes.smb], this);

        this.outputs = {
            clusterName: plane.clusterName,
            clusterId: this.registration.clusterId,
            clusterGroupId: this.registration.clusterGroupId,
            operatorStatus: this.operator.status.status,
        };
        this.registerOutputs(this.outputs);
    }
}

/** How the checks and the teardown reach the GPU cluster, and how their messages name it. */
interface PlaneCluster {
    readonly reach: pulumi.Input<ClusterReach>;
    readonly label: string;
}

/** The operator's, the operator-managed and the add-ons' namespaces, their pull secrets, Kyverno and its policy, and preflight. */
function computePlaneFoundation(
    name: string,
    args: ComputePlaneArgs,
    addons: readonly AddonEntry[],
    at: PlaneCluster,
    owner: pulumi.ComponentResource,
    provider: k8s.Provider,
): PlaneFoundation {
    const { plane, registry, checks } = args;
    const preflightSpec = checks ? computePlanePreflight(checks) : undefined;
    return planeFoundation(
        name,
        {
            namespaces: [
                { name: NVCA_OPERATOR_NAMESPACE },
                ...OPERATOR_MANAGED_NAMESPACES.map((ns) => ({ name: ns, sharedMetadata: true })),
                // The add-ons' own namespaces (the topology releases share nvca-operator's).
                ...[...new Set(addons.map((a) => a.namespace(plane)))]
                    .filter((ns) => ns !== NVCA_OPERATOR_NAMESPACE)
                    .map((ns) => ({ name: ns })),
            ],
            registry,
            // Kyverno once per cluster: a plane on the control plane's cluster uses the control plane's.
            kyverno: plane.cluster.sameAsControlPlane ? undefined : registry.kyverno,
            kyvernoElsewhere: plane.cluster.sameAsControlPlane && args.sharedKyverno ? [args.sharedKyverno] : [],
            policyName: `${PULL_SECRET_POLICY}-${plane.clusterName}`,
            preflight:
                checks && preflightSpec
                    ? { cluster: at.label, reach: at.reach, spec: preflightSpec, timeoutSeconds: checks.preflight.timeoutSeconds }
                    : undefined,
            skipAwait: args.cluster.skipAwait,
        },
        owner,
        provider,
    );
}

/** What the nodes need for NVCA's workloads: the inotify tuner and the SMB CSI driver. */
interface NodePrerequisites {
    readonly tuner: InotifyTuner;
    readonly smb: SmbCsiDriver;
}

/** The node prerequisites, after preflight, beside the registration and the add-ons. */
function nodePrerequisites(
    name: string,
    args: Pick<ComputePlaneArgs, "plane" | "registry" | "cluster">,
    afterPreflight: pulumi.Resource[],
    children: pulumi.ComponentResourceOptions,
): NodePrerequisites {
    const { plane, registry } = args;
    const skipAwait = args.cluster.skipAwait;
    const tuner = new InotifyTuner(
        `${name}-inotify-tuner`,
        { initImage: plane.inotifyTuner.initImage, pauseImage: plane.inotifyTuner.pauseImage, skipAwait },
        { ...children, dependsOn: afterPreflight },
    );
    const smb = new SmbCsiDriver(
        `${name}-smb-csi-driver`,
        { plane, sources: registry, skipAwait },
        { ...children, dependsOn: afterPreflight },
    );
    return { tuner, smb };
}

/** The cluster's registration with ICMS, after what of the control plane it needs (not the whole control plane). */
function clusterRegistration(
    name: string,
    args: Pick<ComputePlaneArgs, "plane" | "cluster" | "domain" | "registrationNeeds">,
    parent: pulumi.Resource,
): ClusterRegistration {
    const { plane, cluster, domain } = args;
    const reg = plane.registration;
    return new ClusterRegistration(
        `${name}-registration`,
        {
            clusterName: plane.clusterName,
            ncaId: plane.ncaId,
            region: plane.region,
            cloudProvider: plane.cloudProvider,
            icmsUrl: reg.icmsURL ?? `http://sis.${domain}`,
            ...(reg.icmsHostHeader ? { icmsHostHeader: reg.icmsHostHeader } : {}),
            apiKeysUrl: reg.apiKeysURL ?? `http://api-keys.${domain}`,
            ...(reg.apiKeysHostHeader ? { apiKeysHostHeader: reg.apiKeysHostHeader } : {}),
            kubeconfigSource: cluster.kubeconfigSource,
            ...(cluster.context ? { kubeContext: cluster.context } : {}),
            ...(cluster.oidcIssuer ? { oidcIssuerUrl: cluster.oidcIssuer } : {}),
            timeoutSeconds: reg.timeoutSeconds,
            retries: reg.retries,
        },
        { parent, dependsOn: [...args.registrationNeeds] },
    );
}

/** The GPU cluster's health gate (NVCA reports Healthy), when checks are on. */
function healthGate(
    name: string,
    args: Pick<ComputePlaneArgs, "plane" | "checks">,
    addons: readonly AddonEntry[],
    at: PlaneCluster,
    after: readonly pulumi.Resource[],
    parent: pulumi.Resource,
): HealthGate | undefined {
    const { plane, checks } = args;
    const healthSpec = checks
        ? computePlaneHealth(checks, plane.clusterName, { namespace: NVCA_OPERATOR_NAMESPACE, agentNamespace: "nvca-system" }, [
              ...new Set(addons.map((a) => a.namespace(plane))),
          ])
        : undefined;
    if (!checks || !healthSpec) return undefined;
    // After the operator: a deployed chart is not a healthy NVCA (the agent may never report in).
    return new HealthGate(
        `${name}-health-gate`,
        {
            cluster: at.label,
            reach: at.reach,
            health: healthSpec,
            timeoutSeconds: checks.healthGate.timeoutSeconds,
            pollSeconds: checks.healthGate.pollSeconds,
        },
        { parent, dependsOn: [...after] },
    );
}
