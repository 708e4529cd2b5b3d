import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { ControlPlaneConfig, ReleaseOverride } from "../../config/model/schema";
import type { Settings } from "../../config/settings";
import { Namespaces, type NamespaceSpec } from "../kubernetes/namespaces";
import { PullSecrets } from "../kubernetes/pull-secrets";
import { catalogEntry, OPENBAO, REGISTRATION_NEEDS } from "../catalog/control-plane";
import type { RegistryAccess } from "../resolve/registry";
import { controlPlaneCredentials, type CredentialSecrets } from "./credentials";
import { declareRelease } from "../release/declare";
import { controlPlanePlan, enabledReleases, valuesContext } from "./plan";
import { routeHostnames } from "../../config/model/derived-facts";
import { OpenBaoGrantRevocation } from "../openbao/grant-revocation";
import type { OpenBaoKvCredential } from "../openbao/kv-credential-resource";
import { cassandraPasswordRotation, mekRotation, natsNkeyRotation, sidecarPullCredential } from "./credential-rotation";
import type { OpenBaoMekRotation } from "../openbao/mek-rotation-resource";
import type { NatsNkeyRotation } from "../openbao/nkey-rotation-resource";
import type { CassandraPasswordRotation } from "../openbao/cassandra-password-resource";
import type { OpenBaoJwtBaseline } from "../openbao/jwt-baseline-resource";
import type { OpenBaoRollout } from "../openbao/rollout-resource";
import type { OpenBaoRolloutConfig } from "../../config/model/openbao-rollout-schema";
import type { CredentialRotationConfig } from "../../config/model/credential-rotation-schema";
import { jwtBaseline, openbaoPodTemplate, openbaoRollout, type OpenBaoUpgradeArgs } from "../openbao/upgrade";
import { PULL_SECRET_POLICY } from "../kubernetes/pull-secret-policy";
import { planeFoundation } from "../plane/foundation";
import { gatewayNamespaces, GatewayPrerequisites } from "./gateway-prerequisites";
import type { ChecksConfig } from "../../config/model/checks-schema";
import { HealthGate, type Preflight } from "../dynamic/cluster-checks";
import { clusterReach, type ClusterTarget } from "../resolve/clusters";
import { controlPlaneHealth, controlPlanePreflight } from "../health/specs";
import type { ReleaseGoal } from "../bundle/restart-warning";
import type { Manifest } from "./gateway-api-manifest";
import { ReleaseDriftCorrection } from "../drift/correction-resource";
import { SmokeCheck } from "../smoke/smoke-resource";
import { smokePlan } from "../smoke/platform";

/** Namespaces from which the shared Gateway's listeners admit routes: those of the releases whose routes attach there. */
export const PLATFORM_NAMESPACES = ["api-keys", "ess", "sis", "nvcf"] as const;
export const PLATFORM_LABEL = { "nvcf/platform": "true" } as const;

export interface ControlPlaneArgs {
    /** The environment: the bundle's `environments/<env>.yaml` keys over `base.yaml`'s defaults. */
    readonly environment: ControlPlaneConfig;
    /** With ingress.gatewayApi.install: the Gateway API manifest's objects, read before anything was declared. */
    readonly gatewayApiManifest?: readonly Manifest[];
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

export interface ReleaseOutput {
    readonly name: pulumi.Output<string>;
    readonly namespace: pulumi.Output<string>;
    readonly chart: string;
    readonly version: pulumi.Output<string>;
    readonly status: pulumi.Output<string>;
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
    readonly outputs: {
        readonly domain: string;
        readonly routes: Readonly<Record<string, string>>;
        readonly namespaces: readonly string[];
        readonly releases: Readonly<Record<string, ReleaseOutput>>;
        readonly smoke?: pulumi.Output<SmokeOutput>;
    };

    constructor(name: string, args: ControlPlaneArgs, opts?: pulumi.ComponentResourceOptions) {
        super("nvcf:control-plane:ControlPlane", name, {}, opts);
        const cp = args.environment;
        const { registry } = args;

        const enabled = enabledReleases(cp);
        const preflightSpec = args.checks ? controlPlanePreflight(cp, args.checks, enabled) : undefined;
        const foundation = planeFoundation(
            name,
            {
                namespaces: ownedNamespaces(cp),
                registry,
                kyverno: registry.kyverno,
                kyvernoElsewhere: [],
                policyName: PULL_SECRET_POLICY,
                // Before any release: a missing Gateway or StorageClass would otherwise surface as a 900 s Helm timeout.
                preflight:
                    args.checks && preflightSpec
                        ? {
                              cluster: "control plane",
                              reach: clusterReach(args.cluster),
                              spec: preflightSpec,
                              timeoutSeconds: args.checks.preflight.timeoutSeconds,
                          }
                        : undefined,
                skipAwait: args.cluster.skipAwait,
            },
            this,
        );
        this.namespaces = foundation.namespaces;
        this.pullSecrets = foundation.pullSecrets;
        this.pullSecretPolicy = foundation.pullSecretPolicy;
        this.preflight = foundation.preflight;
        const { afterPreflight } = foundation;
        const controllerNamespace = cp.ingress.gatewayApi.controllerNamespace;
        const controllerSecret = this.pullSecrets?.byNamespace[controllerNamespace];
        this.gateway = cp.ingress.gatewayApi.install.enabled
            ? new GatewayPrerequisites(
                  `${name}-gateway`,
                  {
                      cp,
                      manifest: requireManifest(args.gatewayApiManifest),
                      namespaces: this.namespaces.byName,
                      controllerNeeds: [
                          ...afterPreflight,
                          ...(controllerSecret ? [controllerSecret] : []),
                          ...(this.pullSecretPolicy ? [this.pullSecretPolicy] : []),
                      ],
                      sources: registry,
                      skipAwait: args.cluster.skipAwait,
                  },
                  { parent: this },
              )
            : undefined;
        // Every release after the policy (its pods get the secret), those with routes after the Gateways; destroy reverses it.
        const policy: pulumi.Resource[] = this.pullSecretPolicy ? [this.pullSecretPolicy] : [];
        const gateways: pulumi.Resource[] = this.gateway?.gateways ?? [];

        const credentials = controlPlaneCredentials(name, args.secrets, args.accountRegistries.username, this);
        const ctx = valuesContext(cp, {
            imagePullSecrets: registry.imagePullSecrets,
            accountRegistries: args.accountRegistries,
            secrets: credentials,
        });

        const openbaoEntry = enabled.find((e) => e.name === OPENBAO.release);
        const openbao: OpenBaoUpgradeArgs | undefined = openbaoEntry
            ? {
                  cluster: args.cluster,
                  namespace: openbaoEntry.namespace(cp),
                  ...args.openbao,
                  jwtMode: cp.openbao.jwtPluginLifecycle.mode,
              }
            : undefined;
        // Before the release changes: the runbook captures the mounts from the OpenBao that runs before the bridge.
        this.jwtBaseline = openbao ? jwtBaseline(name, openbao, { parent: this, dependsOn: afterPreflight }) : undefined;

        const releases: Record<string, k8s.helm.v3.Release> = {};
        let openbaoTemplate: Record<string, unknown> = {};
        const goals: Record<string, ReleaseGoal> = {};
        const plan = controlPlanePlan(cp, { chartVersions: args.chartVersions, releaseOverrides: args.releaseOverrides, context: ctx });
        for (const { entry, namespace, dependencies, version, values } of plan) {
            const ns = this.namespaces.byName[namespace];
            const dependsOn: pulumi.Resource[] = [
                ...(entry.writesToOtherNamespaces ? Object.values(this.namespaces.byName) : ns ? [ns] : []),
                ...(this.pullSecrets?.byNamespace[namespace] ? [this.pullSecrets.byNamespace[namespace]] : []),
                ...dependencies.map((dep) => releases[dep]),
                ...policy,
                ...(entry.attachesToGateways ? gateways : []),
                ...afterPreflight,
                ...(entry.name === OPENBAO.release && this.jwtBaseline ? [this.jwtBaseline] : []),
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
                    sources: registry,
                    skipAwait: args.cluster.skipAwait,
                },
                { parent: this, dependsOn },
            );
        }
        this.releases = releases;
        this.goals = goals;

        const driftCorrections: Record<string, ReleaseDriftCorrection> = {};
        for (const { entry, namespace } of plan) {
            const override = args.releaseOverrides[entry.name];
            if (override?.drift !== "correct") continue;
            driftCorrections[entry.name] = new ReleaseDriftCorrection(
                `${name}-${entry.name}-drift`,
                {
                    reach: clusterReach(args.cluster),
                    release: entry.name,
                    namespace,
                    revision: releases[entry.name].status.revision,
                    ignore: override.driftIgnore ?? [],
                    claims: override.driftCorrectClaims ?? [],
                },
                { parent: this, dependsOn: [releases[entry.name]] },
            );
        }
        this.driftCorrections = driftCorrections;

        if (openbao) {
            this.openbaoRollout = openbaoRollout(name, openbao, releases[OPENBAO.release], openbaoTemplate, this.jwtBaseline, this);
        }

        // The migrations write these once; after OpenBao's rollout, these keep them equal to the stack file.
        if (openbao && openbao.credentialRotation.enabled) {
            const after = [releases[OPENBAO.release], ...(this.openbaoRollout ? [this.openbaoRollout] : [])];
            // No key in the stack file: the migrations wrote a placeholder, and there is nothing to keep equal.
            const rotating = { name, cp, openbao, releases, after, parent: this };
            if (credentials.sidecarCredential !== "") {
                this.sidecarCredential = sidecarPullCredential(rotating, credentials.sidecarCredential);
            }
            this.mekRotation = mekRotation(rotating);
            this.natsNkeyRotation = natsNkeyRotation(rotating);
            this.cassandraPasswordRotation = cassandraPasswordRotation(rotating, credentials.cassandraPassword, goals.cassandra?.values);
        }

        // Migration 10 (admin issuer) has no switch and runs on every install and upgrade of openbao-server: withdraw its grant after each.
        if (!cp.adminIssuerProxy.enabled && releases[OPENBAO.release]) {
            const { access } = args.openbao;
            const namespace = catalogEntry(OPENBAO.release).namespace(cp);
            this.grantRevocation = new OpenBaoGrantRevocation(
                `${name}-admin-issuer-proxy`,
                {
                    via: access.address ? "address" : "kubernetes",
                    ...(access.address ? { address: access.address } : {}),
                    namespace,
                    pod: OPENBAO.pod,
                    port: OPENBAO.port,
                    scheme: access.scheme,
                    ...(args.cluster.generatedKubeconfig ? { kubeconfig: args.cluster.generatedKubeconfig } : {}),
                    ...(args.cluster.context ? { kubeContext: args.cluster.context } : {}),
                    tokenSource: args.openbao.tokenInConfig ? "config" : "kubernetes-secret",
                    tokenSecret: { namespace, ...OPENBAO.rootTokenSecret },
                    insecureSkipVerify: access.insecureSkipVerify,
                    ...(access.caCert ? { caCert: access.caCert } : {}),
                    timeoutSeconds: access.timeoutSeconds,
                    retries: access.retries,
                    openbaoRevision: releases[OPENBAO.release].status.revision,
                },
                // After the rollout too: it steps leaders down and restarts members the revocation talks to.
                { parent: this, dependsOn: [releases[OPENBAO.release], ...(this.openbaoRollout ? [this.openbaoRollout] : [])] },
            );
        }

        const healthSpec = args.checks
            ? controlPlaneHealth(
                  cp,
                  args.checks,
                  enabled,
                  openbaoEntry
                      ? { namespace: openbaoEntry.namespace(cp), pod: OPENBAO.pod, port: OPENBAO.port, access: args.openbao.access }
                      : undefined,
              )
            : undefined;
        if (args.checks && healthSpec) {
            // After every release: a green `up` must mean a working control plane, not only deployed releases.
            this.healthGate = new HealthGate(
                `${name}-health-gate`,
                {
                    cluster: "control plane",
                    reach: clusterReach(args.cluster),
                    health: healthSpec,
                    timeoutSeconds: args.checks.healthGate.timeoutSeconds,
                    pollSeconds: args.checks.healthGate.pollSeconds,
                },
                {
                    parent: this,
                    dependsOn: [
                        ...Object.values(releases),
                        ...(this.grantRevocation ? [this.grantRevocation] : []),
                        ...(this.openbaoRollout ? [this.openbaoRollout] : []),
                        ...(this.sidecarCredential ? [this.sidecarCredential] : []),
                        ...(this.mekRotation ? [this.mekRotation] : []),
                        ...(this.natsNkeyRotation ? [this.natsNkeyRotation] : []),
                        ...(this.cassandraPasswordRotation ? [this.cassandraPasswordRotation] : []),
                        ...Object.values(driftCorrections),
                    ],
                },
            );
        }

        const smoke = args.checks ? smokePlan(cp.global.domain, args.checks.smoke) : undefined;
        if (smoke) {
            const deployed = [...Object.values(releases), ...Object.values(driftCorrections)];
            this.smokeCheck = new SmokeCheck(
                `${name}-smoke`,
                {
                    reach: clusterReach(args.cluster),
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
                { parent: this, dependsOn: args.cluster.skipAwait && this.healthGate ? [this.healthGate] : deployed },
            );
        }

        this.kyverno = foundation.kyverno;
        this.registrationNeeds = [
            ...REGISTRATION_NEEDS.filter((n) => releases[n.release]).map((n) => releases[n.release]),
            // ICMS checks the admin token against OpenBao's keys: not while the rollout restarts its members.
            ...(this.openbaoRollout ? [this.openbaoRollout] : []),
        ];

        this.outputs = {
            domain: cp.global.domain,
            routes: routeHostnames(cp),
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
            ...(this.smokeCheck ? { smoke: smokeOutput(this.smokeCheck) } : {}),
        };
        this.registerOutputs(this.outputs);
    }
}

/** The last smoke run as the stack output shows it: each test hook's phase, the platform check's steps. */
export interface SmokeOutput {
    readonly helmTests: Readonly<Record<string, string>>;
    readonly platform?: string;
}

function smokeOutput(check: SmokeCheck): pulumi.Output<SmokeOutput> {
    return pulumi.all([check.helmTestRuns, check.platformRun]).apply(([runs, platform]) => ({
        helmTests: Object.fromEntries((runs ?? []).map((r) => [`${r.release}/${r.hook}`, `${r.phase} (revision ${r.revision})`])),
        ...(platform ? { platform: platform.ok ? `passed: ${platform.steps.map((s) => s.step).join(", ")}` : "failed" } : {}),
    }));
}

function requireManifest(manifest: readonly Manifest[] | undefined): readonly Manifest[] {
    if (!manifest) throw new Error("ingress.gatewayApi.install is on, but the program read no Gateway API manifest before declaring");
    return manifest;
}
