import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { Settings } from "../../config/load";
import { Namespaces, type NamespaceSpec } from "../kubernetes/namespaces";
import { PullSecrets } from "../kubernetes/pull-secrets";
import { helmRelease } from "../kubernetes/helm-release";
import { CATALOG, type CatalogEntry } from "./catalog";
import { chartFromSources } from "../kubernetes/chart-source";
import { chartAuth, pullSecretPassword } from "../kubernetes/registry-auth";
import type { AwsProviders } from "../aws/providers";
import { controlPlaneCredentials } from "./credentials";
import { mergeValues } from "./merge";
import { installOrder, releaseDependencies } from "./ordering";
import type { ValuesContext } from "./values/context";
import { routeHostnames } from "./values/ingress";
import { OpenBaoGrantRevocation } from "../providers/grant-revocation";

/** Namespaces whose listeners on the shared Gateway admit routes (gateway-routing.md). */
export const PLATFORM_NAMESPACES = ["api-keys", "ess", "sis", "nvcf"] as const;
export const PLATFORM_LABEL = { "nvcf/platform": "true" } as const;

export interface ControlPlaneArgs {
    readonly settings: Settings;
    readonly aws: AwsProviders;
    /** A kubeconfig the program built (EKS), for the dynamic providers that talk to the cluster. */
    readonly generatedKubeconfig?: pulumi.Output<string>;
}

export interface ReleaseOutput {
    name: pulumi.Output<string>;
    namespace: pulumi.Output<string>;
    chart: string;
    version: pulumi.Output<string>;
    status: pulumi.Output<string>;
}

/** The enabled releases of the catalog, in the bundle's order. */
export function enabledReleases(settings: Settings): CatalogEntry[] {
    return CATALOG.filter((entry) => entry.enabled(settings.controlPlane));
}

/**
 * Namespaces the stack owns: every enabled release's namespace, except the Envoy Gateway
 * controller's (a prerequisite, gotcha 18) and cert-manager's when cert-manager is external.
 * cert-manager's survives destroy unless the user confirmed its removal (SKILL teardown).
 */
export function ownedNamespaces(settings: Settings): NamespaceSpec[] {
    const cp = settings.controlPlane;
    const external = new Set<string>([cp.ingress.gatewayApi.controllerNamespace]);
    if (!cp.certManager.enabled) external.add("cert-manager");
    const names = [...new Set(enabledReleases(settings).map((e) => e.namespace(cp)))].filter((n) => !external.has(n));
    return names.map((name) => ({
        name,
        ...((PLATFORM_NAMESPACES as readonly string[]).includes(name) ? { labels: { ...PLATFORM_LABEL } } : {}),
        ...(name === "cert-manager" && !cp.certManager.deleteNamespaceOnDestroy ? { retainOnDelete: true } : {}),
    }));
}

/**
 * The NVCF self-managed control plane: what NVIDIA's `nvcf-self-managed-stack` Helmfile bundle
 * installs, plus the namespaces and pull secrets its runbook creates by hand.
 */
export class ControlPlane extends pulumi.ComponentResource {
    readonly namespaces: Namespaces;
    readonly pullSecrets?: PullSecrets;
    readonly releases: Readonly<Record<string, k8s.helm.v3.Release>>;
    readonly grantRevocation?: OpenBaoGrantRevocation;
    readonly outputs: {
        domain: string;
        routes: Record<string, string>;
        namespaces: string[];
        releases: Record<string, ReleaseOutput>;
    };

    constructor(name: string, args: ControlPlaneArgs, opts?: pulumi.ComponentResourceOptions) {
        super("nvcf:control-plane:ControlPlane", name, {}, opts);
        const { settings } = args;
        const cp = settings.controlPlane;
        const pull = settings.registry.pullSecret;

        this.namespaces = new Namespaces(`${name}-namespaces`, { namespaces: ownedNamespaces(settings) }, { parent: this });
        const pullPassword = pullSecretPassword(settings, cp.global.image.registry);
        if (pullPassword) {
            this.pullSecrets = new PullSecrets(
                `${name}-pull-secrets`,
                {
                    name: pull.name,
                    server: pull.server ?? cp.global.image.registry,
                    username: pull.username,
                    password: pullPassword,
                    namespaces: this.namespaces.byName,
                },
                { parent: this },
            );
        }

        const credentials = controlPlaneCredentials(name, settings, this);
        const imagePullSecrets = [...cp.global.imagePullSecrets];
        if (this.pullSecrets && !imagePullSecrets.some((s) => s.name === pull.name)) {
            imagePullSecrets.push({ name: pull.name });
        }
        const ctx: ValuesContext = {
            cp,
            imagePullSecrets,
            accountRegistries: settings.registry.account,
            secrets: credentials,
        };

        const sources = cp.global.helm.sources;
        const auth = chartAuth(sources, settings, args.aws);
        const chartOf = (entry: CatalogEntry) =>
            entry.source === "observability-local" && cp.observability.chartsPath
                ? chartFromSources(entry.chart, { path: cp.observability.chartsPath }, undefined)
                : chartFromSources(entry.chart, sources, auth);

        const enabled = enabledReleases(settings);
        const dependencies = releaseDependencies(enabled);
        const releases: Record<string, k8s.helm.v3.Release> = {};
        for (const entry of installOrder(enabled, dependencies)) {
            const namespace = entry.namespace(cp);
            const override = settings.releases[entry.name];
            const ns = this.namespaces.byName[namespace];
            const dependsOn: pulumi.Resource[] = [
                ...(ns ? [ns] : []),
                ...(this.pullSecrets?.byNamespace[namespace] ? [this.pullSecrets.byNamespace[namespace]] : []),
                ...(dependencies.get(entry.name) ?? []).map((dep) => releases[dep]),
            ];
            releases[entry.name] = helmRelease(
                `${name}-${entry.name}`,
                {
                    name: entry.name,
                    namespace: ns ? ns.metadata.name : namespace,
                    chart: chartOf(entry),
                    version: override?.version ?? entry.version,
                    values: mergeValues(entry.values(ctx), override?.values),
                    skipAwait: settings.cluster.skipAwait,
                },
                { parent: this, dependsOn },
            );
        }
        this.releases = releases;

        // 1.1.0: disabling the proxy leaves its OpenBao grant in place; withdraw it (gotcha 16).
        if (!cp.adminIssuerProxy.enabled && releases["openbao-server"]) {
            const access = settings.openbaoAccess;
            this.grantRevocation = new OpenBaoGrantRevocation(
                `${name}-admin-issuer-proxy`,
                {
                    via: access.address ? "address" : "kubernetes",
                    ...(access.address ? { address: access.address } : {}),
                    namespace: "vault-system",
                    pod: "openbao-server-0",
                    port: 8200,
                    scheme: access.scheme,
                    ...(args.generatedKubeconfig ? { kubeconfig: args.generatedKubeconfig } : {}),
                    ...(settings.cluster.context ? { kubeContext: settings.cluster.context } : {}),
                    tokenSource: settings.secrets.openbaoToken ? "config" : "kubernetes-secret",
                    tokenSecret: { namespace: "vault-system", name: "openbao-server-root-token", key: "root_token" },
                    insecureSkipVerify: access.insecureSkipVerify,
                    ...(access.caCert ? { caCert: access.caCert } : {}),
                    timeoutSeconds: access.timeoutSeconds,
                    retries: access.retries,
                },
                { parent: this, dependsOn: [releases["openbao-server"]] },
            );
        }

        this.outputs = {
            domain: cp.global.domain,
            routes: routeHostnames(ctx),
            namespaces: Object.keys(this.namespaces.byName),
            releases: Object.fromEntries(
                Object.entries(releases).map(([releaseName, release]) => [
                    releaseName,
                    {
                        name: release.status.name,
                        namespace: release.status.namespace,
                        chart: enabled.find((e) => e.name === releaseName)?.chart ?? "",
                        version: release.status.version,
                        status: release.status.status,
                    },
                ]),
            ),
        };
        this.registerOutputs(this.outputs);
    }
}
