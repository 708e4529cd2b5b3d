import type * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import type { ControlPlaneConfig } from "../../config/model/schema";
import { catalogEntry, OPENBAO, type CatalogEntry } from "../catalog/control-plane";
import type { ClusterTarget } from "../resolve/clusters";
import type { ControlPlaneCredentials } from "./credentials";
import { OpenBaoGrantRevocation } from "./grant-revocation";
import type { OpenBaoKvCredential } from "../resources/openbao-kv-credential";
import type { OpenBaoMekRotation } from "../resources/openbao-mek-rotation";
import type { NatsNkeyRotation } from "../resources/openbao-nkey-rotation";
import type { CassandraPasswordRotation } from "../resources/openbao-cassandra-password";
import type { OpenBaoRollout } from "../resources/openbao-rollout";
import type { OpenBaoUpgradeArgs } from "./openbao-upgrade";
import type { DeclaredReleases } from "./releases";
import { cassandraPasswordRotation, mekRotation, natsNkeyRotation, sidecarPullCredential } from "./credential-rotation";

/** The stack's OpenBao settings: how it is reached, whether its token is in config, its rollout and the credential rotation. */
export type OpenBaoSettings = Pick<OpenBaoUpgradeArgs, "access" | "tokenInConfig" | "rollout" | "credentialRotation">;

/** What the OpenBao resources need to know, when the stack installs OpenBao. */
export function openbaoUpgradeArgs(
    cp: ControlPlaneConfig,
    enabled: readonly CatalogEntry[],
    cluster: ClusterTarget,
    settings: OpenBaoSettings,
): OpenBaoUpgradeArgs | undefined {
    const openbaoEntry = enabled.find((e) => e.name === OPENBAO.release);
    return openbaoEntry
        ? {
              cluster,
              namespace: openbaoEntry.namespace(cp),
              ...settings,
              jwtMode: cp.openbao.jwtPluginLifecycle.mode,
          }
        : undefined;
}

/** The credentials written into OpenBao after its release, each when it is declared. */
export interface CredentialRotations {
    readonly sidecarCredential?: OpenBaoKvCredential;
    readonly mekRotation?: OpenBaoMekRotation;
    readonly natsNkeyRotation?: NatsNkeyRotation;
    readonly cassandraPasswordRotation?: CassandraPasswordRotation;
}

/** The migrations write these once; after OpenBao's rollout, these keep them equal to the stack file. */
export function credentialRotations(
    name: string,
    cp: ControlPlaneConfig,
    openbao: OpenBaoUpgradeArgs | undefined,
    credentials: ControlPlaneCredentials,
    declared: Pick<DeclaredReleases, "releases" | "goals">,
    rollout: OpenBaoRollout | undefined,
    parent: pulumi.Resource,
): CredentialRotations {
    if (!openbao || !openbao.credentialRotation.enabled) return {};
    const { releases, goals } = declared;
    const after = [releases[OPENBAO.release], ...(rollout ? [rollout] : [])];
    const rotating = { name, cp, openbao, releases, after, parent };
    return {
        // No key in the stack file: the migrations wrote a placeholder, and there is nothing to keep equal.
        ...(credentials.sidecarCredential !== ""
            ? { sidecarCredential: sidecarPullCredential(rotating, credentials.sidecarCredential) }
            : {}),
        mekRotation: mekRotation(rotating),
        natsNkeyRotation: natsNkeyRotation(rotating),
        cassandraPasswordRotation: cassandraPasswordRotation(rotating, credentials.cassandraPassword, goals.cassandra?.values),
    };
}

/**
 * Migration 10 (admin issuer) has no switch and runs on every install and upgrade of
 * openbao-server: with the admin issuer proxy off, withdraw its grant after each.
 */
export function grantRevocation(
    name: string,
    cp: ControlPlaneConfig,
    cluster: ClusterTarget,
    settings: Pick<OpenBaoSettings, "access" | "tokenInConfig">,
    releases: Readonly<Record<string, k8s.helm.v3.Release>>,
    rollout: OpenBaoRollout | undefined,
    parent: pulumi.Resource,
): OpenBaoGrantRevocation | undefined {
    if (cp.adminIssuerProxy.enabled || !releases[OPENBAO.release]) return undefined;
    const { access } = settings;
    const namespace = catalogEntry(OPENBAO.release).namespace(cp);
    return new OpenBaoGrantRevocation(
        `${name}-admin-issuer-proxy`,
        {
            via: access.address ? "address" : "kubernetes",
            ...(access.address ? { address: access.address } : {}),
            namespace,
            pod: OPENBAO.pod,
            port: OPENBAO.port,
            scheme: access.scheme,
            ...(cluster.generatedKubeconfig ? { kubeconfig: cluster.generatedKubeconfig } : {}),
            ...(cluster.context ? { kubeContext: cluster.context } : {}),
            tokenSource: settings.tokenInConfig ? "config" : "kubernetes-secret",
            tokenSecret: { namespace, ...OPENBAO.rootTokenSecret },
            insecureSkipVerify: access.insecureSkipVerify,
            ...(access.caCert ? { caCert: access.caCert } : {}),
            timeoutSeconds: access.timeoutSeconds,
            retries: access.retries,
            openbaoRevision: releases[OPENBAO.release].status.revision,
        },
        // After the rollout too: it steps leaders down and restarts members the revocation talks to.
        { parent, dependsOn: [releases[OPENBAO.release], ...(rollout ? [rollout] : [])] },
    );
}
