import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { ControlPlaneConfig, ReleaseOverride } from "../../config/model/schema";
import type { Settings } from "../../config/settings";
import type { Namespaces, NamespaceSpec } from "../kubernetes/namespaces";
import type { PullSecrets } from "../kubernetes/pull-secrets";
import { OPENBAO, REGISTRATION_NEEDS, type CatalogEntry } from "../catalog/control-plane";
import type { RegistryAccess } from "../resolve/registry";
import { controlPlaneCredentials, type ControlPlaneCredentials, type CredentialSecrets } from "./credentials";
import { controlPlanePlan, enabledReleases, valuesContext, type PlannedRelease } from "./plan";
import type { OpenBaoGrantRevocation } from "./grant-revocation";
import type { OpenBaoKvCredential } from "../resources/openbao-kv-credential";
import type { OpenBaoMekRotation } from "../resources/openbao-mek-rotation";
import type { NatsNkeyRotation } from "../resources/openbao-nkey-rotation";
import type { CassandraPasswordRotation } from "../resources/openbao-cassandra-password";
import type { OpenBaoJwtBaseline } from "../resources/openbao-jwt-baseline";
import type { OpenBaoRollout } from "../resources/openbao-rollout";
import type { OpenBaoRolloutConfig } from "../../config/model/openbao-rollout-schema";
import type { CredentialRotationConfig } from "../../config/model/credential-rotation-schema";
import { jwtBaseline, openbaoRollout } from "./openbao-upgrade";
import { PULL_SECRET_POLICY } from "../kubernetes/pull-secret-policy";
import { planeFoundation, type PlaneFoundation } from "../plane/foundation";
import { gatewayNamespaces, GatewayPrerequisites } from "./gateway-prerequisites";
import type { ChecksConfig } from "../../config/model/checks-schema";
import type { HealthGate, Preflight } from "../resources/cluster-checks";
import { clusterReach, type ClusterTarget } from "../resolve/clusters";
import { controlPlanePreflight } from "../plane/health-specs";
import type { ReleaseGoal } from "../bundle/restart-warning";
import type { Manifest } from "./gateway-api-manifest";
import type { ReleaseDriftCorrection } from "../resources/release-drift-correction";
import type { SmokeCheck } from "../resources/smoke-check";
import { declareReleases, driftCorrections, type ReleaseFoundation } from "./releases";
import { credentialRotations, grantRevocation, openbaoUpgradeArgs } from "./openbao";
import { healthGate, smokeCheck } from "./checks";
import { controlPlaneOutputs, type ControlPlaneOutputs } from "./outputs";

export type { ReleaseOutput, SmokeOutput } from "./outputs";

/** Namespaces from which the shared Gateway's listeners admit routes: those of the releases whose routes attach there. */
export const PLATFORM_NAMESPACES = ["api-keys", "ess", "sis", "nvcf"] as const;
export const PLATFORM_LABEL = { "nvcf/platform": "true" } as const;

export interface ControlPlaneArgs {
    /** The environment: the bundle's `environments/<env>.yaml` keys over `base.yaml`'s defaults. */
    readonly environment: ControlPlaneConfig;
    /** With ingress.gatewayApi.install: the Gateway API manifest's objects, read before anything was declared. */
    readonly gatewayApiManifest?: readonly Manifest[];
    /** The Gateway that DNS records point at (dns.route53): when the stack installs it, it waits for its address. */
    readonly dnsGateway?: { readonly name: string; readonly namespace: string };
    /** Per-release values blocks, by release name. */
    readonly releaseOverrides: Readonly<Record<string, ReleaseOverride>>;
    /** Each release's chart version: the stack's bundle release's, or a per-release pin. */
    readonly chartVersions: Readonly<Record<string, string>>;
    /** The cluster: whether Helm waits, and how the grant revocation reaches the API server. */
    readonly cluster: ClusterTarget;
    /** The pull secret, the charts' `imagePullSecrets`, and where the charts come from. */
    readonly registry: RegistryAccess;
    /** The default account's registry user and hostnames (its credentials are made from the secrets). */
    readonly accountRegistries: Settings["registry"]["account"];
    /** The stack secrets the credentials of the values are made from. */
    readonly secrets: CredentialSecrets;
    /**
     * How the admin issuer proxy's grant revocation and the rollout reach OpenBao, whether its
     * token is in config, and how its members are rolled after a change to their pod template.
     */
    readonly openbao: {
        readonly access: Settings["openbaoAccess"];
        readonly tokenInConfig: boolean;
        readonly rollout: OpenBaoRolloutConfig;
        /** Whether and how a changed sidecar credential is written into OpenBao and its readers restarted. */
        readonly credentialRotation: CredentialRotationConfig;
    };
    /** Preflight before the first release and the health gate after the last; unset: neither. */
    readonly checks?: ChecksConfig;
}

/**
 * Namespaces the stack owns: every enabled release's namespace, except the Envoy Gateway
 * controller's (installed before the stack, outside it) and cert-manager's when cert-manager is
 * external. cert-manager's survives destroy unless the user confirmed its removal, as NVIDIA's
 * teardown keeps it by default.
 */
export function ownedNamespaces(cp: ControlPlaneConfig): NamespaceSpec[] {
    // With ingress.gatewayApi.install the stack installs the controller and Gateways, so it owns their namespaces.
    const installsGateway = cp.ingress.gatewayApi.install.enabled;
    const gateways = installsGateway ? gatewayNamespaces(cp) : [];
    const external = new Set<string>(installsGateway ? [] : [cp.ingress.gatewayApi.controllerNamespace]);
    if (!cp.certManager.enabled) external.add("cert-manager");
    const names = [...new Set([...enabledReleases(cp).map((e) => e.namespace(cp)), ...gateways])].filter((n) => !external.has(n));
    const platform = new Set<string>([...PLATFORM_NAMESPACES, ...gateways]);
    return names.map((name) => ({
        name,
        ...(platform.has(name) ? { labels: { ...PLATFORM_LABEL } } : {}),
        ...(name === "cert-manager" && !cp.certManager.deleteNamespaceOnDestroy ? { retainOnDelete: true } : {}),
    }));
}

/**
 * The NVCF self-managed control plane: what NVIDIA's `nvcf-self-managed-stack` Helmfile bundle
 * installs, plus the namespaces and pull secrets its runbook creates by hand.
 */
export class ControlPlane extends pulumi.ComponentResource {
    /** The namespaces the stack owns on the control plane's cluster. */
    readonly namespaces: Namespaces;
    /** The pull secret in each of them, when the registry needs one. */
    readonly pullSecrets?: PullSecrets;
    /** The Kyverno ClusterPolicy adding the pull secret to every pod (registry.pullSecret.mode: kyverno). */
    readonly pullSecretPolicy?: k8s.apiextensions.CustomResource;
    /** The Gateway prerequisites, when the stack installs them (ingress.gatewayApi.install). */
    readonly gateway?: GatewayPrerequisites;
    /** The control plane's Helm releases, by release name. */
    readonly releases: Readonly<Record<string, k8s.helm.v3.Release>>;
    /** What each release is given: chart version and values. */
    readonly goals: Readonly<Record<string, ReleaseGoal>>;
    /** The releases whose objects `pulumi up` holds to what Helm recorded (`releases.<name>.drift: correct`), by release name. */
    readonly driftCorrections: Readonly<Record<string, ReleaseDriftCorrection>>;
    /** Withdraws the admin issuer's OpenBao grant after each openbao-server revision, when the proxy is off. */
    readonly grantRevocation?: OpenBaoGrantRevocation;
    /** The sidecar image-pull credential written into OpenBao when it changes, its readers restarted. */
    readonly sidecarCredential?: OpenBaoKvCredential;
    /** NVIDIA's MEK rotation, when `credentialRotation.mekRotations` goes up. */
    readonly mekRotation?: OpenBaoMekRotation;
    /** The shared NATS NKey replaced, when `credentialRotation.natsNkeyRotations` goes up. */
    readonly natsNkeyRotation?: NatsNkeyRotation;
    /** Every Cassandra service role's password kept equal to `cassandraPassword`, in Cassandra and OpenBao. */
    readonly cassandraPasswordRotation?: CassandraPasswordRotation;
    /** OpenBao's member-by-member rollout, after its release. */
    readonly openbaoRollout?: OpenBaoRollout;
    /** The JWT mounts before OpenBao changes, with `openbao.jwtPluginLifecycle.mode`. */
    readonly jwtBaseline?: OpenBaoJwtBaseline;
    /** Preflight of the control plane's cluster, when checks are on. */
    readonly preflight?: Preflight;
    /** The control plane's health gate, after every release, when checks are on. */
    readonly healthGate?: HealthGate;
    /** The smoke check after the releases (`checks.smoke`): the charts' helm tests and the platform check. */
    readonly smokeCheck?: SmokeCheck;
    /** Kyverno's release, when the stack installs it on the control plane's cluster (a compute plane there uses it too). */
    readonly kyverno?: k8s.helm.v3.Release;
    /** What a GPU cluster's registration waits for: ICMS and what it needs, the admin token's issuer, the routes. */
    readonly registrationNeeds: readonly pulumi.Resource[];
    /** The stack outputs the control plane reports: domain, route hostnames, namespaces, releases, the last smoke run. */
    readonly outputs: ControlPlaneOutputs;

    constructor(name: string, args: ControlPlaneArgs, opts?: pulumi.ComponentResourceOptions) {
        super("nvcf:control-plane:ControlPlane", name, {}, opts);
        const cp = args.environment;
        const enabled = enabledReleases(cp);

        const foundation = controlPlaneFoundation(name, args, enabled, this);
        this.namespaces = foundation.namespaces;
        this.pullSecrets = foundation.pullSecrets;
        this.pullSecretPolicy = foundation.pullSecretPolicy;
        this.preflight = foundation.preflight;
        this.kyverno = foundation.kyverno;
        this.gateway = gatewayPrerequisites(name, args, foundation, this);

        const credentials = controlPlaneCredentials(name, args.secrets, args.accountRegistries.username, this);
        const openbao = openbaoUpgradeArgs(cp, enabled, args.cluster, args.openbao);
        // Before the release changes: the runbook captures the mounts from the OpenBao that runs before the bridge.
        this.jwtBaseline = openbao ? jwtBaseline(name, openbao, { parent: this, dependsOn: foundation.afterPreflight }) : undefined;

        const plan = releasePlan(args, credentials);
        const declared = declareReleases(name, plan, releaseFoundation(args, foundation, this.gateway, this.jwtBaseline), this);
        const { releases } = declared;
        this.releases = releases;
        this.goals = declared.goals;
        this.driftCorrections = driftCorrections(name, plan, args.releaseOverrides, args.cluster, releases, this);

        this.openbaoRollout = openbao
            ? openbaoRollout(name, openbao, releases[OPENBAO.release], declared.openbaoTemplate, this.jwtBaseline, this)
            : undefined;
        const rotations = credentialRotations(name, cp, openbao, credentials, declared, this.openbaoRollout, this);
        this.sidecarCredential = rotations.sidecarCredential;
        this.mekRotation = rotations.mekRotation;
        this.natsNkeyRotation = rotations.natsNkeyRotation;
        this.cassandraPasswordRotation = rotations.cassandraPasswordRotation;
        this.grantRevocation = grantRevocation(name, cp, args.cluster, args.openbao, releases, this.openbaoRollout, this);

        const checked = { cp, checks: args.checks, cluster: args.cluster, enabled, openbao };
        const deployed = { releases, driftCorrections: this.driftCorrections };
        const changes = { grantRevocation: this.grantRevocation, openbaoRollout: this.openbaoRollout };
        this.healthGate = healthGate(name, checked, { ...deployed, ...changes, ...rotations }, this);
        this.smokeCheck = smokeCheck(name, checked, deployed, this.healthGate, this);

        this.registrationNeeds = registrationNeeds(releases, this.openbaoRollout);
        this.outputs = controlPlaneOutputs(cp, enabled, this.namespaces, releases, this.smokeCheck);
        this.registerOutputs(this.outputs);
    }
}

/** The namespaces, pull secrets, Kyverno and its policy, and the control plane's cluster's preflight. */
function controlPlaneFoundation(
    name: string,
    args: ControlPlaneArgs,
    enabled: readonly CatalogEntry[],
    owner: pulumi.ComponentResource,
): PlaneFoundation {
    const { registry, checks } = args;
    const preflightSpec = checks ? controlPlanePreflight(args.environment, checks, enabled) : undefined;
    return planeFoundation(
        name,
        {
            namespaces: ownedNamespaces(args.environment),
            registry,
            kyverno: registry.kyverno,
            kyvernoElsewhere: [],
            policyName: PULL_SECRET_POLICY,
            // Before any release: a missing Gateway or StorageClass would otherwise surface as a 900 s Helm timeout.
            preflight:
                checks && preflightSpec
                    ? {
                          cluster: "control plane",
                          reach: clusterReach(args.cluster),
                          spec: preflightSpec,
                          timeoutSeconds: checks.preflight.timeoutSeconds,
                      }
                    : undefined,
            skipAwait: args.cluster.skipAwait,
        },
        owner,
    );
}

/** The Gateway API CRDs, Envoy Gateway and the Gateways, when the stack installs them (ingress.gatewayApi.install). */
function gatewayPrerequisites(
    name: string,
    args: Pick<ControlPlaneArgs, "environment" | "gatewayApiManifest" | "registry" | "cluster" | "dnsGateway">,
    foundation: PlaneFoundation,
    parent: pulumi.Resource,
): GatewayPrerequisites | undefined {
    const cp = args.environment;
    if (!cp.ingress.gatewayApi.install.enabled) return undefined;
    const controllerSecret = foundation.pullSecrets?.byNamespace[cp.ingress.gatewayApi.controllerNamespace];
    return new GatewayPrerequisites(
        `${name}-gateway`,
        {
            cp,
            manifest: requireManifest(args.gatewayApiManifest),
            namespaces: foundation.namespaces.byName,
            controllerNeeds: [
                ...foundation.afterPreflight,
                ...(controllerSecret ? [controllerSecret] : []),
                ...(foundation.pullSecretPolicy ? [foundation.pullSecretPolicy] : []),
            ],
            sources: args.registry,
            skipAwait: args.cluster.skipAwait,
            ...(args.dnsGateway ? { awaitAddress: args.dnsGateway } : {}),
        },
        { parent },
    );
}

function requireManifest(manifest: readonly Manifest[] | undefined): readonly Manifest[] {
    if (!manifest) throw new Error("ingress.gatewayApi.install is on, but the program read no Gateway API manifest before declaring");
    return manifest;
}

/** The releases in install order with their versions and values, which the credentials go into. */
function releasePlan(args: ControlPlaneArgs, credentials: ControlPlaneCredentials): PlannedRelease[] {
    const cp = args.environment;
    const context = valuesContext(cp, {
        imagePullSecrets: args.registry.imagePullSecrets,
        accountRegistries: args.accountRegistries,
        secrets: credentials,
    });
    return controlPlanePlan(cp, { chartVersions: args.chartVersions, releaseOverrides: args.releaseOverrides, context });
}

/** What every release stands on: the foundation, then the Gateways for those with routes and the JWT baseline for OpenBao's. */
function releaseFoundation(
    args: Pick<ControlPlaneArgs, "environment" | "registry" | "cluster">,
    foundation: PlaneFoundation,
    gateway: GatewayPrerequisites | undefined,
    baseline: OpenBaoJwtBaseline | undefined,
): ReleaseFoundation {
    return {
        cp: args.environment,
        namespaces: foundation.namespaces,
        pullSecrets: foundation.pullSecrets,
        policy: foundation.pullSecretPolicy ? [foundation.pullSecretPolicy] : [],
        gateways: gateway?.gateways ?? [],
        afterPreflight: foundation.afterPreflight,
        jwtBaseline: baseline,
        registry: args.registry,
        skipAwait: args.cluster.skipAwait,
    };
}

/** What a GPU cluster's registration waits for: ICMS and what it needs, the admin token's issuer, the routes. */
function registrationNeeds(
    releases: Readonly<Record<string, k8s.helm.v3.Release>>,
    rollout: OpenBaoRollout | undefined,
): pulumi.Resource[] {
    return [
        ...REGISTRATION_NEEDS.filter((n) => releases[n.release]).map((n) => releases[n.release]),
        // ICMS checks the admin token against OpenBao's keys: not while the rollout restarts its members.
        ...(rollout ? [rollout] : []),
    ];
}
