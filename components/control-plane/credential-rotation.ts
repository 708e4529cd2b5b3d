import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { ControlPlaneConfig } from "../../config/model/schema";
import { SIDECAR_PULL_SECRET } from "../../lib/openbao/contract";
import { catalogEntry } from "../catalog/control-plane";
import { CassandraPasswordRotation } from "../resources/openbao-cassandra-password";
import { CASSANDRA_SUPERUSER } from "../../lib/cassandra/contract";
import { OpenBaoKvCredential } from "../resources/openbao-kv-credential";
import { OpenBaoMekRotation } from "../resources/openbao-mek-rotation";
import { NatsNkeyRotation } from "../resources/openbao-nkey-rotation";
import { openbaoReach, type OpenBaoUpgradeArgs } from "./openbao-upgrade";

/** Where a rotation runs and what it restarts: the same for every credential, given its readers' release names in restart order. */
interface Rotating {
    readonly name: string;
    readonly cp: ControlPlaneConfig;
    readonly openbao: OpenBaoUpgradeArgs;
    readonly releases: Readonly<Record<string, k8s.helm.v3.Release>>;
    /** OpenBao's release and rollout: its members stand before anything is written to them. */
    readonly after: readonly pulumi.Resource[];
    readonly parent: pulumi.Resource;
}

/** The inputs every rotation shares, and its options: after the readers' releases (their Deployments exist) and OpenBao. */
function common(r: Rotating, readerReleases: readonly string[]) {
    const present = readerReleases.filter((name) => r.releases[name]);
    return {
        inputs: {
            ...openbaoReach(r.openbao),
            readers: present.map((release) => ({ namespace: catalogEntry(release).namespace(r.cp), release })),
            timeoutSeconds: r.openbao.credentialRotation.timeoutSeconds,
            pollSeconds: r.openbao.credentialRotation.pollSeconds,
        },
        opts: { parent: r.parent, dependsOn: [...present.map((name) => r.releases[name]), ...r.after] },
    };
}

/** The releases whose Deployments (nvcf-api, nvct-api) read the sidecar credential when their pods start. */
const SIDECAR_READERS = ["api", "nvct-api"];

/**
 * The sidecar image-pull credential kept equal to the stack file. NVIDIA's migrations write it
 * only when absent, so without this a changed key would never reach OpenBao; after a write, the
 * readers started before it are restarted, as the stack operations' repair does.
 */
export function sidecarPullCredential(r: Rotating, credential: pulumi.Input<string>): OpenBaoKvCredential {
    const { inputs, opts } = common(r, SIDECAR_READERS);
    return new OpenBaoKvCredential(
        `${r.name}-sidecar-pull-credential`,
        {
            ...inputs,
            credential: "the sidecar image-pull credential",
            targets: Object.values(SIDECAR_PULL_SECRET),
            data: pulumi.secret(pulumi.output(credential).apply((secret) => ({ secret }))),
            format: "docker-auth",
        },
        opts,
    );
}

/** The releases whose Deployments read the master encryption keys, in the order they are restarted: ESS unwraps by kid first. */
const MEK_READERS = ["ess-api", "api-keys", "api"];

/** NVIDIA's MEK rotation runbook, run each time `credentialRotation.mekRotations` goes up. */
export function mekRotation(r: Rotating): OpenBaoMekRotation {
    const { inputs, opts } = common(r, MEK_READERS);
    return new OpenBaoMekRotation(`${r.name}-mek-rotation`, { ...inputs, rotation: r.openbao.credentialRotation.mekRotations }, opts);
}

/**
 * The releases whose Deployments log in to NATS with the shared NKey, in the order they are
 * restarted: the auth callout first (it reads the key it accepts when it starts), then
 * nvcf-api, the invocation service, grpc-proxy and sis (ICMS), then nats-box (the Secret).
 */
const NKEY_READERS = ["nats-auth-callout-service", "api", "invocation-service", "grpc-proxy", "sis", "nats"];

/** The control-plane operations' NKey rotation after a switch to token mode, run each time `credentialRotation.natsNkeyRotations` goes up. */
export function natsNkeyRotation(r: Rotating): NatsNkeyRotation {
    const { inputs, opts } = common(r, NKEY_READERS);
    const settings = r.openbao.credentialRotation;
    return new NatsNkeyRotation(
        `${r.name}-nats-nkey-rotation`,
        { ...inputs, rotation: settings.natsNkeyRotations, workerAuth: r.cp.nats.workerAuth, force: settings.natsNkeyForce },
        opts,
    );
}

/** The releases whose services log in to Cassandra with a service role, in the order they are restarted. */
const CASSANDRA_READERS = ["ess-api", "api-keys", "sis", "api", "nvct-api", "function-autoscaler"];

/**
 * `cassandraPassword` after the first install: NVIDIA's migrations set the roles' password and
 * OpenBao's logins once, so a changed value is rotated here, in Cassandra, then OpenBao, then
 * the services. Only where the stack installs Cassandra, after its release (the roles exist), as
 * the superuser its values give.
 */
export function cassandraPasswordRotation(
    r: Rotating,
    password: pulumi.Input<string>,
    cassandraValues: pulumi.Input<Record<string, unknown>> | undefined,
): CassandraPasswordRotation | undefined {
    const cassandra = r.releases.cassandra;
    if (!cassandra) return undefined;
    const { inputs, opts } = common(r, CASSANDRA_READERS);
    // The chart's initdb hook sets the superuser to cassandra.dbUser, so a value given there (releases.cassandra.values) is the login.
    const superuser = pulumi.secret(
        pulumi.output(cassandraValues ?? {}).apply((v) => {
            const dbUser = (v.cassandra as { dbUser?: { user?: string; password?: string } } | undefined)?.dbUser;
            return { user: dbUser?.user ?? CASSANDRA_SUPERUSER.user, password: dbUser?.password ?? CASSANDRA_SUPERUSER.password };
        }),
    );
    return new CassandraPasswordRotation(
        `${r.name}-cassandra-password-rotation`,
        { ...inputs, password: pulumi.secret(password), superuser },
        { ...opts, dependsOn: [cassandra, ...opts.dependsOn] },
    );
}
