import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { ComputePlaneConfig } from "../../config/model/compute-plane-schema";
import { clusterProvider } from "../kubernetes/provider";
import { ClusterRegistration } from "../dynamic/cluster-registration";
import type { ClusterTarget } from "../resolve/clusters";
import type { RegistryAccess } from "../resolve/registry";
import { addonDependencies, enabledAddons } from "../catalog/compute-plane-addons";
import { NVCA_OPERATOR, NVCA_OPERATOR_NAMESPACE } from "../catalog/compute-plane";
import { declareRelease, releaseValues } from "../release/declare";
import { InotifyTuner } from "./inotify-tuner";
import { defaultEndpoints, type ComputePlaneVersions } from "../catalog/nvca-operator-values";
import { SmbCsiDriver } from "./smb-csi-driver";
import { PULL_SECRET_POLICY } from "../kubernetes/pull-secret-policy";
import { planeFoundation } from "../plane/foundation";
import type { ChecksConfig } from "../../config/model/checks-schema";
import { clusterReach } from "../resolve/clusters";
import { computePlaneHealth, computePlanePreflight } from "../health/specs";
import { HealthGate, type Preflight } from "../dynamic/cluster-checks";
import { NVCA_CRDS, NVCA_NAMESPACES, NvcaTeardown } from "../dynamic/nvca-teardown";

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
        const { plane, cluster, registry } = args;
        const skipAwait = cluster.skipAwait;
        const addons = enabledAddons(plane);

        this.provider = clusterProvider(`${name}-provider`, cluster, { parent: this });
        const children = { parent: this, providers: [this.provider] };
        const reach = clusterReach(cluster, plane.clusterName);
        const label = `compute plane ${plane.clusterName}`;

        const preflightSpec = args.checks ? computePlanePreflight(args.checks) : undefined;
        const foundation = planeFoundation(
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
                    args.checks && preflightSpec
                        ? { cluster: label, reach, spec: preflightSpec, timeoutSeconds: args.checks.preflight.timeoutSeconds }
                        : undefined,
                skipAwait,
            },
            this,
            this.provider,
        );
        this.preflight = foundation.preflight;
        const { namespaces, pullSecrets, afterPreflight, pullSecretPolicy: policy } = foundation;

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

        const { domain } = args;
        const reg = plane.registration;
        this.registration = new ClusterRegistration(
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
            { parent: this, dependsOn: [...args.registrationNeeds] },
        );

        // The add-ons, as the bundle's 01-dependencies file installs them: each after its namespace,
        // its pull secret and what it needs; destroy removes them in reverse.
        const addonDeps = addonDependencies(addons);
        // Destroy runs it after the operator's uninstall and the add-ons in NVCA's namespaces (the
        // topology releases), which depend on it: NVCA's CRDs and namespaces, which the uninstall
        // leaves, go as the cluster document removes them, after every release recorded in them.
        this.teardown = new NvcaTeardown(
            `${name}-nvca-teardown`,
            {
                clusterName: plane.clusterName,
                reach,
                crds: [...NVCA_CRDS],
                namespaces: [...NVCA_NAMESPACES],
                timeoutSeconds: plane.teardown.timeoutSeconds,
                forceFinalizers: plane.teardown.forceFinalizers,
            },
            { parent: this, dependsOn: Object.values(namespaces.byName) },
        );

        const addonReleases: Record<string, k8s.helm.v3.Release> = {};
        for (const entry of addons) {
            const namespace = entry.namespace(plane);
            const ns = namespaces.byName[namespace];
            const secret = pullSecrets?.byNamespace[namespace];
            addonReleases[entry.name] = declareRelease(
                {
                    logicalName: `${name}-${entry.name}`,
                    entry,
                    settings: plane,
                    namespace: ns.metadata.name,
                    version: args.versions.charts[entry.name],
                    values: releaseValues(entry, { plane, imagePullSecrets: registry.imagePullSecrets }),
                    sources: registry,
                    skipAwait,
                },
                {
                    parent: this,
                    provider: this.provider,
                    dependsOn: [
                        ns,
                        ...(secret ? [secret] : []),
                        ...(policy ? [policy] : []),
                        ...(addonDeps.get(entry.name) ?? []).map((dep) => addonReleases[dep]),
                        // Uninstalled before the teardown deletes the namespace that holds their Helm records.
                        ...((NVCA_NAMESPACES as readonly string[]).includes(namespace) ? [this.teardown] : []),
                        ...afterPreflight,
                    ],
                },
            );
        }
        this.addons = addonReleases;

        const operatorNamespace = namespaces.byName[NVCA_OPERATOR_NAMESPACE];
        this.operator = declareRelease(
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
                    endpoints: defaultEndpoints(plane, domain),
                    clusterId: this.registration.clusterId,
                    clusterGroupId: this.registration.clusterGroupId,
                }),
                sources: registry,
                skipAwait,
            },
            {
                parent: this,
                provider: this.provider,
                // Uninstall before deregistering: the uninstall deletes the NVCFBackend, and ICMS refuses (409) while instances are active.
                // Nothing of the control plane's beyond the registration: its readiness probe answers without it.
                dependsOn: [
                    this.registration,
                    smb,
                    tuner,
                    // 02-nvca after 01-dependencies: the operator's gates and merge config name the add-ons.
                    ...Object.values(addonReleases),
                    ...Object.values(namespaces.byName),
                    ...Object.values(pullSecrets?.byNamespace ?? {}),
                    ...(policy ? [policy] : []),
                    this.teardown,
                    ...afterPreflight,
                ],
            },
        );

        const healthSpec = args.checks
            ? computePlaneHealth(args.checks, plane.clusterName, { namespace: NVCA_OPERATOR_NAMESPACE, agentNamespace: "nvca-system" }, [
                  ...new Set(addons.map((a) => a.namespace(plane))),
              ])
            : undefined;
        if (args.checks && healthSpec) {
            // After the operator: a deployed chart is not a healthy NVCA (the agent may never report in).
            this.healthGate = new HealthGate(
                `${name}-health-gate`,
                {
                    cluster: label,
                    reach,
                    health: healthSpec,
                    timeoutSeconds: args.checks.healthGate.timeoutSeconds,
                    pollSeconds: args.checks.healthGate.pollSeconds,
                },
                { parent: this, dependsOn: [this.operator, ...Object.values(addonReleases), smb] },
            );
        }

        this.outputs = {
            clusterName: plane.clusterName,
            clusterId: this.registration.clusterId,
            clusterGroupId: this.registration.clusterGroupId,
            operatorStatus: this.operator.status.status,
        };
        this.registerOutputs(this.outputs);
    }
}
