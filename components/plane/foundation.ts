import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { KYVERNO, type KyvernoInstall } from "../catalog/prerequisites";
import { declareRelease, releaseValues, versionOf } from "../release/declare";
import { Namespaces, type NamespaceSpec } from "../kubernetes/namespaces";
import { pullSecretPolicy } from "../kubernetes/pull-secret-policy";
import { PullSecrets } from "../kubernetes/pull-secrets";
import { Preflight } from "../resources/cluster-checks";
import type { PreflightSpec } from "../../lib/health/checks";
import type { ClusterReach } from "../../lib/cluster-access/reach";
import type { RegistryAccess } from "../resolve/registry";

export interface PlaneFoundationArgs {
    /** The plane's own namespaces (Kyverno's, when it is installed here, is added). */
    readonly namespaces: readonly NamespaceSpec[];
    readonly registry: RegistryAccess;
    /** Kyverno installed on this cluster, or undefined when the cluster has it already or needs none. */
    readonly kyverno?: KyvernoInstall;
    /** What serves the pull-secret policy when Kyverno is not installed here (another plane's release on the same cluster). */
    readonly kyvernoElsewhere: readonly pulumi.Resource[];
    /** The name of the plane's Kyverno ClusterPolicy (cluster-scoped, so one per plane on a shared cluster). */
    readonly policyName: string;
    /** Preflight of the cluster before anything of the plane's own, or undefined (checks off). */
    readonly preflight?: {
        readonly cluster: string;
        readonly reach: pulumi.Input<ClusterReach>;
        readonly spec: PreflightSpec;
        readonly timeoutSeconds: number;
    };
    readonly skipAwait: boolean;
}

/** What a plane builds its releases on. */
export interface PlaneFoundation {
    /** The namespaces the plane owns, by name. */
    readonly namespaces: Namespaces;
    /** The pull secret in each namespace of the plane (not Kyverno's), when the registry needs one. */
    readonly pullSecrets?: PullSecrets;
    /** Kyverno's release, when it is installed on this cluster by this plane. */
    readonly kyverno?: k8s.helm.v3.Release;
    /** The Kyverno ClusterPolicy adding the pull secret to every pod (registry.pullSecret.mode: kyverno). */
    readonly pullSecretPolicy?: k8s.apiextensions.CustomResource;
    readonly preflight?: Preflight;
    /** What everything of the plane's own waits for: nothing runs on a cluster that failed preflight. */
    readonly afterPreflight: pulumi.Resource[];
}

/**
 * The foundation both planes stand on: their namespaces, the pull secret in each, Kyverno and its
 * pull-secret policy when the registry asks for them, and preflight. Its resources are the
 * plane's children (`owner`), with the plane's cluster provider when it has one, so their URNs
 * are the plane's own.
 */
export function planeFoundation(
    name: string,
    args: PlaneFoundationArgs,
    owner: pulumi.ComponentResource,
    provider?: k8s.Provider,
): PlaneFoundation {
    const components: pulumi.ComponentResourceOptions = provider ? { parent: owner, providers: [provider] } : { parent: owner };
    const resources: pulumi.CustomResourceOptions = provider ? { parent: owner, provider } : { parent: owner };
    const { registry, kyverno: kyvernoInstall } = args;

    const preflight = args.preflight
        ? new Preflight(
              `${name}-preflight`,
              {
                  cluster: args.preflight.cluster,
                  reach: args.preflight.reach,
                  preflight: args.preflight.spec,
                  timeoutSeconds: args.preflight.timeoutSeconds,
              },
              { parent: owner },
          )
        : undefined;
    const afterPreflight = preflight ? [preflight] : [];

    const namespaces = new Namespaces(
        `${name}-namespaces`,
        { namespaces: [...args.namespaces, ...(kyvernoInstall ? [{ name: kyvernoInstall.namespace }] : [])] },
        components,
    );
    // Kyverno's own namespace needs no NVCF credential.
    const nvcfNamespaces = Object.fromEntries(Object.entries(namespaces.byName).filter(([ns]) => ns !== kyvernoInstall?.namespace));
    const pullSecrets = registry.pullSecret
        ? new PullSecrets(`${name}-pull-secrets`, { ...registry.pullSecret, namespaces: nvcfNamespaces }, components)
        : undefined;
    const kyverno = kyvernoInstall
        ? declareRelease(
              {
                  logicalName: `${name}-kyverno`,
                  entry: KYVERNO,
                  settings: kyvernoInstall,
                  namespace: namespaces.byName[kyvernoInstall.namespace].metadata.name,
                  version: versionOf(KYVERNO, kyvernoInstall, {}),
                  values: releaseValues(KYVERNO, kyvernoInstall),
                  sources: registry,
                  skipAwait: args.skipAwait,
              },
              { ...resources, dependsOn: [namespaces.byName[kyvernoInstall.namespace], ...afterPreflight] },
          )
        : undefined;
    const policy =
        registry.pullSecretMode === "kyverno" && registry.pullSecret && pullSecrets
            ? pullSecretPolicy(
                  `${name}-pull-secret-policy`,
                  {
                      policyName: args.policyName,
                      secretName: registry.pullSecret.name,
                      secrets: pullSecrets.byNamespace,
                      kyverno: kyverno ? [kyverno] : args.kyvernoElsewhere,
                  },
                  resources,
              )
            : undefined;
    return { namespaces, pullSecrets, kyverno, pullSecretPolicy: policy, preflight, afterPreflight };
}
