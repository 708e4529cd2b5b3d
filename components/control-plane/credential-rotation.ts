import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { ControlPlaneConfig } from "../../config/schema";
import { SIDECAR_PULL_SECRET } from "../contracts/openbao";
import { catalogEntry } from "../catalog/control-plane";
import { OpenBaoKvCredential } from "../openbao/kv-credential-resource";
import { OpenBaoMekRotation } from "../openbao/mek-rotation-resource";
import { openbaoReach, type OpenBaoUpgradeArgs } from "../openbao/upgrade";

/** The releases whose Deployments (nvcf-api, nvct-api) read the sidecar credential when their pods start. */
const SIDECAR_READERS = ["api", "nvct-api"] as const;

/**
 * The sidecar image-pull credential kept equal to the stack file. NVIDIA's migrations write it
 * only when absent, so without this a changed key would never reach OpenBao; after a write, the
 * readers started before it are restarted, as the stack operations' repair does.
 */
export function sidecarPullCredential(
    name: string,
    cp: ControlPlaneConfig,
    openbao: OpenBaoUpgradeArgs,
    credential: pulumi.Input<string>,
    releases: Readonly<Record<string, k8s.helm.v3.Release>>,
    after: readonly pulumi.Resource[],
    parent: pulumi.Resource,
): OpenBaoKvCredential {
    const readers = SIDECAR_READERS.filter((r) => releases[r]);
    return new OpenBaoKvCredential(
        `${name}-sidecar-pull-credential`,
        {
            ...openbaoReach(openbao),
            credential: "the sidecar image-pull credential",
            targets: Object.values(SIDECAR_PULL_SECRET),
            data: pulumi.secret(pulumi.output(credential).apply((secret) => ({ secret }))),
            format: "docker-auth",
            readers: readers.map((release) => ({ namespace: catalogEntry(release).namespace(cp), release })),
            timeoutSeconds: openbao.credentialRotation.timeoutSeconds,
            pollSeconds: openbao.credentialRotation.pollSeconds,
        },
        // After the readers' releases (their Deployments exist) and OpenBao's rollout (its members stand).
        { parent, dependsOn: [...readers.map((r) => releases[r]), ...after] },
    );
}

/** The releases whose Deployments read the master encryption keys, in the order they are restarted: ESS unwraps by kid first. */
const MEK_READERS = ["ess-api", "api-keys", "api"] as const;

/** NVIDIA's MEK rotation runbook, run each time `credentialRotation.mekRotations` goes up. */
export function mekRotation(
    name: string,
    cp: ControlPlaneConfig,
    openbao: OpenBaoUpgradeArgs,
    releases: Readonly<Record<string, k8s.helm.v3.Release>>,
    after: readonly pulumi.Resource[],
    parent: pulumi.Resource,
): OpenBaoMekRotation {
    const readers = MEK_READERS.filter((r) => releases[r]);
    return new OpenBaoMekRotation(
        `${name}-mek-rotation`,
        {
            ...openbaoReach(openbao),
            rotation: openbao.credentialRotation.mekRotations,
            readers: readers.map((release) => ({ namespace: catalogEntry(release).namespace(cp), release })),
            timeoutSeconds: openbao.credentialRotation.timeoutSeconds,
            pollSeconds: openbao.credentialRotation.pollSeconds,
        },
        { parent, dependsOn: [...readers.map((r) => releases[r]), ...after] },
    );
}
