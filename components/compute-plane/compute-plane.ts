import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { ComputePlaneConfig } from "../../config/compute-plane-schema";
import type { Settings } from "../../config/load";
import { chartFromSources } from "../kubernetes/chart-source";
import { chartAuth, pullSecretPassword } from "../kubernetes/registry-auth";
import { eksCluster, type EksCluster } from "../aws/eks";
import type { AwsProviders } from "../aws/providers";
import { helmRelease } from "../kubernetes/helm-release";
import { Namespaces } from "../kubernetes/namespaces";
import { clusterProvider } from "../kubernetes/provider";
import { PullSecrets } from "../kubernetes/pull-secrets";
import { ClusterRegistration, type KubeconfigSource } from "../providers/cluster-registration";
import { InotifyTuner } from "./inotify-tuner";
import { defaultEndpoints, nvcaOperatorValues } from "./nvca-values";
import { SmbCsiDriver } from "./smb-csi-driver";

/** The chart and namespace the compute-plane bundle installs the operator with (gotcha 4: fixed). */
export const NVCA_OPERATOR = { release: "nvca-operator", namespace: "nvca-operator", chart: "helm-nvca-operator" } as const;
/** Namespaces the operator owns but whose pull secrets must exist before it starts (gotcha 8). */
export const OPERATOR_MANAGED_NAMESPACES = ["nvca-system", "nvcf-backend"] as const;

export interface ComputePlaneArgs {
    readonly plane: ComputePlaneConfig;
    readonly settings: Settings;
    /** The control plane the cluster registers with; registration and operator come after it. */
    readonly controlPlane: pulumi.Resource;
    readonly aws: AwsProviders;
    /** The control plane's EKS cluster, when it runs on EKS (for `sameAsControlPlane`). */
    readonly controlPlaneEks?: EksCluster;
}

export interface ComputePlaneOutputs {
    clusterName: string;
    clusterId: pulumi.Output<string>;
    clusterGroupId: pulumi.Output<string>;
    operatorStatus: pulumi.Output<string>;
}

/**
 * One GPU cluster: its node prerequisites (inotify tuner, SMB CSI driver), pull secrets, the
 * registration with ICMS and the NVCA operator. The operator depends on everything else, so
 * destroy uninstalls it (draining the cluster) first and deregisters the cluster after it.
 */
export class ComputePlane extends pulumi.ComponentResource {
    readonly provider: k8s.Provider;
    readonly registration: ClusterRegistration;
    readonly operator: k8s.helm.v3.Release;
    readonly outputs: ComputePlaneOutputs;

    constructor(name: string, args: ComputePlaneArgs, opts?: pulumi.ComponentResourceOptions) {
        super("nvcf:compute-plane:ComputePlane", name, {}, opts);
        const { plane, settings } = args;
        const cp = settings.controlPlane;
        const skipAwait = plane.cluster.skipAwait;
        const access = clusterAccess(plane, settings, args);

        this.provider = clusterProvider(
            `${name}-provider`,
            { context: access.context, clusterIdentifier: access.clusterIdentifier },
            access.kubeconfig,
            { parent: this },
        );
        const children = { parent: this, providers: [this.provider] };

        const namespaces = new Namespaces(
            `${name}-namespaces`,
            {
                namespaces: [
                    { name: NVCA_OPERATOR.namespace },
                    ...OPERATOR_MANAGED_NAMESPACES.map((ns) => ({ name: ns, sharedMetadata: true })),
                ],
            },
            children,
        );
        const pull = settings.registry.pullSecret;
        const imageRegistry = plane.image.registry ?? cp.global.image.registry;
        const pullPassword = pullSecretPassword(settings, imageRegistry);
        const pullSecrets = pullPassword
            ? new PullSecrets(
                  `${name}-pull-secrets`,
                  {
                      name: pull.name,
                      server: pull.server ?? imageRegistry,
                      username: pull.username,
                      password: pullPassword,
                      namespaces: namespaces.byName,
                  },
                  children,
              )
            : undefined;
        const imagePullSecrets = [...plane.imagePullSecrets];
        if (pullSecrets && !imagePullSecrets.some((s) => s.name === pull.name)) imagePullSecrets.push({ name: pull.name });

        const tuner = new InotifyTuner(
            `${name}-inotify-tuner`,
            { initImage: plane.inotifyTuner.initImage, pauseImage: plane.inotifyTuner.pauseImage, skipAwait },
            children,
        );
        const smb = new SmbCsiDriver(
            `${name}-smb-csi-driver`,
            { version: plane.smbCsiDriver.version, source: plane.smbCsiDriver.source, skipAwait },
            children,
        );

        const domain = cp.global.domain;
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
                kubeconfigSource: access.registrationSource,
                ...(access.context ? { kubeContext: access.context } : {}),
                ...(access.oidcIssuer ? { oidcIssuerUrl: access.oidcIssuer } : {}),
                timeoutSeconds: reg.timeoutSeconds,
                retries: reg.retries,
            },
            { parent: this, dependsOn: [args.controlPlane] },
        );

        const sources = { ...cp.global.helm.sources, ...definedOnly(plane.helmSources) };
        const auth = chartAuth(sources, settings, args.aws);
        const operatorNamespace = namespaces.byName[NVCA_OPERATOR.namespace];
        this.operator = helmRelease(
            `${name}-nvca-operator`,
            {
                name: NVCA_OPERATOR.release,
                namespace: operatorNamespace.metadata.name,
                chart: chartFromSources(NVCA_OPERATOR.chart, sources, auth),
                version: plane.nvcaOperator.chartVersion,
                values: nvcaOperatorValues({
                    plane,
                    image: {
                        registry: imageRegistry,
                        repository: plane.image.repository ?? cp.global.image.repository,
                    },
                    imagePullSecrets,
                    endpoints: defaultEndpoints(plane, domain),
                    clusterId: this.registration.clusterId,
                    clusterGroupId: this.registration.clusterGroupId,
                }),
                skipAwait,
            },
            {
                parent: this,
                provider: this.provider,
                // Gotcha 7: uninstall (whose hook drains and deletes the NVCFBackend) before deregistering.
                dependsOn: [
                    args.controlPlane,
                    this.registration,
                    smb,
                    tuner,
                    ...Object.values(namespaces.byName),
                    ...Object.values(pullSecrets?.byNamespace ?? {}),
                ],
            },
        );

        this.outputs = {
            clusterName: plane.clusterName,
            clusterId: this.registration.clusterId,
            clusterGroupId: this.registration.clusterGroupId,
            operatorStatus: this.operator.status.status,
        };
        this.registerOutputs(this.outputs);
    }
}

interface ClusterAccess {
    readonly kubeconfig?: pulumi.Output<string>;
    readonly context?: string;
    readonly clusterIdentifier: string;
    readonly registrationSource: KubeconfigSource;
    /** EKS: the cluster's OIDC issuer, which registers it without API-server discovery. */
    readonly oidcIssuer?: pulumi.Output<string>;
}

/** How the provider and the registration reach the GPU cluster (gotcha 16: never a guess). */
function clusterAccess(plane: ComputePlaneConfig, settings: Settings, args: ComputePlaneArgs): ClusterAccess {
    if (plane.cluster.eks) {
        const eks = eksCluster(plane.cluster.eks, args.aws);
        return {
            kubeconfig: eks.kubeconfig,
            clusterIdentifier: plane.cluster.clusterIdentifier ?? eks.clusterIdentifier,
            registrationSource: "oidc-issuer",
            oidcIssuer: eks.oidcIssuer,
        };
    }
    if (plane.cluster.sameAsControlPlane) {
        const eks = args.controlPlaneEks;
        if (eks) {
            return {
                kubeconfig: eks.kubeconfig,
                clusterIdentifier: plane.cluster.clusterIdentifier ?? eks.clusterIdentifier,
                registrationSource: "oidc-issuer",
                oidcIssuer: eks.oidcIssuer,
            };
        }
        return {
            kubeconfig: settings.secrets.kubeconfig,
            context: settings.cluster.context,
            clusterIdentifier: plane.cluster.clusterIdentifier ?? settings.cluster.clusterIdentifier,
            registrationSource: "control-plane",
        };
    }
    const hasKubeconfig = settings.computePlaneKubeconfigNames.includes(plane.clusterName);
    const all = settings.secrets.computePlaneKubeconfigs;
    return {
        ...(hasKubeconfig && all
            ? { kubeconfig: pulumi.secret(all.apply((json) => (JSON.parse(json) as Record<string, string>)[plane.clusterName])) }
            : {}),
        context: plane.cluster.context,
        clusterIdentifier: plane.cluster.clusterIdentifier ?? plane.clusterName,
        registrationSource: hasKubeconfig ? "compute-plane" : "default",
    };
}

function definedOnly<T extends object>(value: T): Partial<T> {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
