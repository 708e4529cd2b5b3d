import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { ControlPlaneConfig } from "../../config/schema";
import { SIDECAR_PULL_SECRET } from "../contracts/openbao";
import { catalogEntry } from "../catalog/control-plane";
import { OpenBaoKvCredential } from "../openbao/kv-credential-resource";
import { openbaoReach, type OpenBaoUpgradeArgs } from "../openbao/upgrade";

/** The releases whose Deployments (their fullnameOverride) read the sidecar credential when their pods start. */
const SIDECAR_READERS = [
    { release: "api", deployment: "nvcf-api" },
    { release: "nvct-api", deployment: "nvct-api" },
] as const;

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
    const readers = SIDECAR_READERS.filter((r) => releases[r.release]);
    return new OpenBaoKvCredential(
        `${name}-sidecar-pull-credential`,
        {
            ...openbaoReach(openbao),
            credential: "the sidecar image-pull credential",
            targets: Object.values(SIDECAR_PULL_SECRET),
            data: pulumi.secret(pulumi.output(credential).apply((secret) => ({ secret }))),
            format: "docker-auth",
            readers: readers.map((r) => ({ namespace: catalogEntry(r.release).namespace(cp), deployment: r.deployment })),
            timeoutSeconds: openbao.credentialRotation.timeoutSeconds,
            pollSeconds: openbao.credentialRotation.pollSeconds,
        },
        // After the readers' releases (their Deployments exist) and OpenBao's rollout (its members stand).
        { parent, dependsOn: [...readers.map((r) => releases[r.release]), ...after] },
    );
}
