import type * as pulumi from "@pulumi/pulumi";
import { excerpt } from "../../lib/http/client";
import type { Kube } from "../../lib/kubernetes/client";
import { NATS, NKEY_SECRET } from "../../lib/nats/contract";
import { NATS_AUTH_CALLOUT_CREDS, NATS_CREDS, type KvTarget } from "../../lib/openbao/contract";
import {
    NKEY_ROTATED_AT,
    NKEY_ROTATION_MARK,
    NKEY_SECRET_NAME as SECRET_NAME,
    NKEY_SECRET_PATH as SECRET_PATH,
    readNkeySecret,
    type NkeySecret,
} from "../../lib/nats/nkey-secret";
import type { OpenBaoReach } from "../../lib/openbao/access";
import { kvName, mergeKv, readKv } from "../../lib/openbao/kv-credential";
import { activeMember } from "../../lib/openbao/leader";
import type { OpenBaoMembers } from "../../lib/openbao/members";
import { restartReaders, type CredentialReader } from "../../lib/openbao/readers";
import { userNkey } from "../../lib/nats/nkeys";
import { workersHoldingKey, type HeldConnection } from "../../lib/nats/workers";
import { defineProvider, type CheckFailure, type ProviderContext } from "./kit";

export interface NkeyRotationInputs extends OpenBaoReach {
    /** `credentialRotation.natsNkeyRotations`: each increase replaces the shared worker NKey. */
    readonly rotation: number;
    /** `nats.workerAuth`: a rotation is only offered in `token` mode, where no new worker gets the shared key. */
    readonly workerAuth: "nkey" | "token";
    /** `credentialRotation.natsNkeyForce`: rotate though the NATS servers cannot rule out a worker holding the key. */
    readonly force: boolean;
    /** The auth callout first, then every service that logs in with the key, then nats-box. */
    readonly readers: readonly CredentialReader[];
    readonly timeoutSeconds: number;
    readonly pollSeconds: number;
}

export interface NkeyRotationOutputs extends NkeyRotationInputs {
    /** The shared key's public half (`U…`); the seed stays in the Secret and OpenBao. */
    readonly publicKey: string;
    /** When the current key was made by a rotation; empty for the chart's first key. */
    readonly rotatedAt: string;
    readonly restarted: string[];
}

const WHAT = "the NATS NKey rotation";

/**
 * The control-plane operations' last step after a switch to `nats.workerAuth: token`: replace the
 * shared worker NKey once no worker started before the switch still runs. With a higher
 * `rotation` it asks every NATS server for worker connections that may hold the key and refuses
 * while there are any (or while it cannot tell, unless forced). Then, in the order the key flows:
 * the chart's `nats-nkeys` Secret (the source migration 03 copies into OpenBao on every
 * openbao-server install), OpenBao's `nats/creds` and the callout's `shared_worker_nkey_pub`, and
 * the readers' restarts, the auth callout first so it accepts the new key before the services
 * log in with it. Each step after the Secret is read from what is stored, so a rerun finishes
 * a stopped rotation without making another key.
 */
export const NkeyRotationProvider = defineProvider<NkeyRotationInputs, NkeyRotationOutputs>({
    describe: () => WHAT,
    secrets: ["openbaoToken"],
    check: (news, olds) => {
        const failures: CheckFailure[] = [];
        const before = olds?.rotation ?? 0;
        if (news.rotation < before) {
            failures.push({
                property: "rotation",
                reason:
                    `credentialRotation.natsNkeyRotations went from ${before} to ${news.rotation}: a rotation is not undone ` +
                    `(the old key is gone); set it back to ${before}`,
            });
        } else if (news.rotation > before && news.workerAuth !== "token") {
            failures.push({
                property: "rotation",
                reason:
                    `credentialRotation.natsNkeyRotations went up while nats.workerAuth is ${news.workerAuth}: in that mode every ` +
                    `worker is given the shared NKey, and a new one would cut off the running ones; switch to token first`,
            });
        }
        return failures;
    },
    // force only matters for a rotation to come; turning it on or off changes nothing in the cluster.
    ignores: ["force"],
    id: () => `${NATS.namespace}/${NKEY_SECRET.name}`,
    create: apply,
    importRefused: "importing a NATS NKey rotation is not supported; declare it instead",
    read: async (_id, props, ctx) => {
        // A Secret that is gone or not a key leaves the recorded outputs: the next rotation says what is wrong with it.
        const secret = await readNkeySecret(await ctx.kube(props.reach)).catch(() => undefined);
        return secret ? { ...props, publicKey: secret.publicKey, rotatedAt: secret.rotatedAt } : props;
    },
});

async function apply(inputs: NkeyRotationInputs, ctx: ProviderContext): Promise<NkeyRotationOutputs> {
    const kube = await ctx.kube(inputs.reach);
    const untouched = { ...inputs, publicKey: "", rotatedAt: "", restarted: [] };
    let secret: NkeySecret | undefined;
    try {
        secret = await readNkeySecret(kube);
    } catch (err) {
        // Nothing asked for and nothing rotated before that could be read: no reason to stop an up.
        if (inputs.rotation === 0) return untouched;
        throw new Error(`${WHAT}: ${(err as Error).message}; nothing was written`, { cause: err });
    }
    if (!secret) {
        if (inputs.rotation === 0) return untouched;
        throw new Error(`${WHAT}: ${SECRET_NAME} does not exist, so there is no key to rotate; the nats release makes it at install`);
    }
    if (inputs.rotation > secret.mark) {
        if (inputs.workerAuth !== "token") {
            throw new Error(
                `${WHAT}: nats.workerAuth is ${inputs.workerAuth}, where every worker holds the shared NKey; nothing was written`,
            );
        }
        if (!inputs.force) await refuseWhileHeld(kube, secret.publicKey, ctx);
        secret = await writeSecret(kube, secret, inputs.rotation, ctx);
    }
    // The chart's key, never rotated here: OpenBao holds the same (migration 03 copies it), and no reader needs a restart.
    if (secret.mark === 0) return { ...inputs, publicKey: secret.publicKey, rotatedAt: "", restarted: [] };

    const { members, leader } = await activeMember(kube, inputs, ctx.secret("openbaoToken"), WHAT);
    await sync(members, leader, NATS_CREDS, { key: secret.seed, public_key: secret.publicKey }, ctx);
    await sync(members, leader, NATS_AUTH_CALLOUT_CREDS, { shared_worker_nkey_pub: secret.publicKey }, ctx);
    const restarted = await restartReaders(kube, inputs.readers, secret.rotatedAt, {
        what: WHAT,
        timeoutSeconds: inputs.timeoutSeconds,
        pollMs: ctx.options.pollMs ?? inputs.pollSeconds * 1000,
        say: ctx.say,
    });
    return { ...inputs, publicKey: secret.publicKey, rotatedAt: secret.rotatedAt, restarted };
}

/** Stops, with nothing written, while a worker may hold the key or the servers cannot say. */
async function refuseWhileHeld(kube: Kube, publicKey: string, ctx: ProviderContext): Promise<void> {
    const look = await workersHoldingKey(kube, publicKey);
    const force = "set credentialRotation.natsNkeyForce: true to rotate anyway (those workers lose NATS until replaced)";
    if (!look.known) {
        throw new Error(
            `${WHAT}: whether a worker still holds the shared NKey cannot be known: ${look.why}; nothing was written. ${force}`,
        );
    }
    if (look.held.length === 0) {
        ctx.say(`${WHAT}: no worker connection holds the shared NKey on ${look.servers} NATS server(s)`);
        return;
    }
    throw new Error(
        `${WHAT}: ${look.held.length} worker connection(s) may still hold the shared NKey, and a new key would cut them off: ` +
            `${describeHeld(look.held)}; nothing was written. Wait until they are replaced (redeploy their functions), or ${force}`,
    );
}

/** A new key into the Secret, marked with the rotation, on the version read (a concurrent change fails it, 409). */
async function writeSecret(kube: Kube, secret: NkeySecret, rotation: number, ctx: ProviderContext): Promise<NkeySecret> {
    const pair = userNkey();
    const rotatedAt = (ctx.options.now?.() ?? new Date()).toISOString();
    const patch = {
        metadata: {
            resourceVersion: secret.resourceVersion,
            annotations: { [NKEY_ROTATION_MARK]: String(rotation), [NKEY_ROTATED_AT]: rotatedAt },
        },
        data: { [NKEY_SECRET.seed]: b64(pair.seed), [NKEY_SECRET.publicKey]: b64(pair.publicKey) },
    };
    const res = await kube.request("PATCH", SECRET_PATH, patch, "application/merge-patch+json");
    if (res.status !== 200) {
        throw new Error(
            `${WHAT}: could not write ${SECRET_NAME}: HTTP ${res.status}: ${excerpt(res.text, 200)}` +
                (res.status === 409 ? " (it changed while rotating); run pulumi up again" : "; nothing was written"),
        );
    }
    const written = await readNkeySecret(kube);
    if (written?.publicKey !== pair.publicKey || written.seed !== pair.seed) {
        throw new Error(`${WHAT}: ${SECRET_NAME} read back does not hold the new key`);
    }
    ctx.say(`${WHAT}: ${SECRET_NAME} holds the new key ${pair.publicKey} (rotation ${rotation})`);
    return written;
}

/** Makes a kv-v2 secret hold `fields`, keeping its other fields, on the version read (check-and-set). */
async function sync(
    members: OpenBaoMembers,
    leader: string,
    t: KvTarget,
    fields: Readonly<Record<string, string>>,
    ctx: ProviderContext,
): Promise<void> {
    const stored = await readKv(members, leader, t);
    if (!stored) {
        throw new Error(
            `${WHAT}: ${kvName(t)} does not exist; the openbao-server release's migration 03 writes it ` +
                `(kubectl -n ${NATS.namespace} get secret ${NKEY_SECRET.name}, then run pulumi up again)`,
        );
    }
    const after = await mergeKv(members, leader, t, stored, fields).catch((err: unknown) => {
        throw new Error(`${WHAT}: ${(err as Error).message}`, { cause: err });
    });
    if (after) ctx.say(`${WHAT}: wrote ${kvName(t)} (version ${after.version})`);
}

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

/** The connections for the message: at most five, then how many more. */
function describeHeld(held: readonly HeldConnection[]): string {
    const one = (c: HeldConnection) =>
        `${c.name} on ${c.server} from ${c.ip} since ${c.start} (${c.login === "nkey" ? "logged in with the shared NKey" : "a user that is not a token worker's"})`;
    const shown = held.slice(0, 5).map(one).join("; ");
    return held.length > 5 ? `${shown}; and ${held.length - 5} more` : shown;
}

export type NkeyRotationArgs = { [K in keyof NkeyRotationInputs]: pulumi.Input<NkeyRotationInputs[K]> };
