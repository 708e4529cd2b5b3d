import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { OpenBaoRolloutConfig } from "../../config/model/openbao-rollout-schema";
import type { CredentialRotationConfig } from "../../config/model/credential-rotation-schema";
import type { Settings } from "../../config/settings";
import { OpenBaoJwtBaseline } from "../resources/openbao-jwt-baseline";
import { OpenBaoRollout } from "../resources/openbao-rollout";
import type { OpenBaoReach } from "../../lib/openbao/access";
import { clusterReach, type ClusterTarget } from "../resolve/clusters";
import { OPENBAO } from "../catalog/control-plane";

/** What the OpenBao resources of the control plane need to know. */
export interface OpenBaoUpgradeArgs {
    readonly cluster: ClusterTarget;
    readonly namespace: string;
    readonly access: Settings["openbaoAccess"];
    readonly tokenInConfig: boolean;
    readonly rollout: OpenBaoRolloutConfig;
    readonly credentialRotation: CredentialRotationConfig;
    readonly jwtMode?: "bridge" | "versioned";
}

/** How the rollout and the JWT baseline reach OpenBao's members: the API server's pod proxy to each pod. */
export function openbaoReach(args: OpenBaoUpgradeArgs): { [K in keyof OpenBaoReach]: pulumi.Input<OpenBaoReach[K]> } {
    return {
        reach: clusterReach(args.cluster),
        namespace: args.namespace,
        statefulSet: OPENBAO.statefulSet,
        port: OPENBAO.port,
        scheme: args.access.scheme,
        tokenSource: args.tokenInConfig ? "config" : "kubernetes-secret",
        tokenSecret: { namespace: args.namespace, ...OPENBAO.rootTokenSecret },
    };
}

/**
 * What OpenBao's server pods are made of: the chart and its version, and the values its
 * StatefulSet renders (`openbao.server`, `openbao.global`). Not the migrations' values, which
 * carry secrets and no pod of the StatefulSet.
 */
export function openbaoPodTemplate(chart: string, version: string, values: Record<string, unknown>): Record<string, unknown> {
    const openbao = (values.openbao ?? {}) as Record<string, unknown>;
    return {
        chart,
        version,
        ...(openbao.server !== undefined ? { server: openbao.server } : {}),
        ...(openbao.global !== undefined ? { global: openbao.global } : {}),
    };
}

/** With the JWT plugin lifecycle on: the mounts' baseline, which the openbao-server release must depend on. */
export function jwtBaseline(name: string, args: OpenBaoUpgradeArgs, opts: pulumi.CustomResourceOptions): OpenBaoJwtBaseline | undefined {
    return args.jwtMode
        ? new OpenBaoJwtBaseline(`${name}-openbao-jwt-baseline`, { ...openbaoReach(args), mode: args.jwtMode }, opts)
        : undefined;
}

/** The member-by-member rollout after the openbao-server release, with the JWT mount check when the lifecycle is on. */
export function openbaoRollout(
    name: string,
    args: OpenBaoUpgradeArgs,
    release: k8s.helm.v3.Release,
    podTemplate: Record<string, unknown>,
    baseline: OpenBaoJwtBaseline | undefined,
    parent: pulumi.Resource,
): OpenBaoRollout {
    const { rollout, jwtMode } = args;
    if (!rollout.enabled) {
        pulumi.log.warn(
            "openbaoRollout.enabled is false: after a change to OpenBao's pod template its members keep running the old one " +
                "until they are replaced by hand (docs/operations.md, OpenBao upgrades)",
            parent,
        );
    }
    return new OpenBaoRollout(
        `${name}-openbao-rollout`,
        {
            ...openbaoReach(args),
            podTemplate,
            enabled: rollout.enabled,
            memberTimeoutSeconds: rollout.memberTimeoutSeconds,
            pollSeconds: rollout.pollSeconds,
            ...(baseline && jwtMode ? { jwtPluginLifecycle: baseline.baseline.apply((b) => ({ mode: jwtMode, baseline: b })) } : {}),
        },
        { parent, dependsOn: [release] },
    );
}
