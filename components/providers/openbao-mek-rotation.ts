import type * as pulumi from "@pulumi/pulumi";
import { MEK_STORED_DATA, type KvTarget } from "../../lib/openbao/contract";
import type { OpenBaoReach } from "../../lib/openbao/access";
import { kvDataPath, kvName, readKv } from "../../lib/openbao/kv-credential";
import { kidOfRotation, readMek, rotateMek, rotationKid } from "../../lib/openbao/mek";
import { restartReaders, type CredentialReader } from "../../lib/openbao/readers";
import { openBaoLeader } from "./openbao-leader";
import { defineProvider, type CheckFailure, type ProviderContext } from "./kit";

/** The kv-v2 custom metadata key that says which rotation the stored keys are the result of, written once its key is read back. */
export const MEK_ROTATION_MARK = "nvcf-self-managed-mek-rotation";

export interface MekRotationInputs extends OpenBaoReach {
    /** `credentialRotation.mekRotations`: each increase adds one key and makes it current. */
    readonly rotation: number;
    /** ESS, api-keys and nvcf-api: restarted, in this order, when their pods are older than the keys. */
    readonly readers: readonly CredentialReader[];
    readonly timeoutSeconds: number;
    readonly pollSeconds: number;
}

export interface MekRotationOutputs extends MekRotationInputs {
    /** The kid in use, and every kid kept (key IDs, not keys). */
    readonly currentKid: string;
    readonly kids: string[];
    readonly restarted: string[];
}

const WHAT = "the MEK rotation";

/**
 * NVIDIA's MEK rotation runbook as a resource: with a higher `rotation`, a new key is put first in
 * `keys` and in `private_jwks` and made current; every old key stays, since NEKs and data written
 * before are decrypted by their kid. The write is a check-and-set on the version read. kv-v2 takes
 * the rotation's mark in the secret's custom metadata only in a second call, so the new key's kid
 * also names its rotation: a rerun after a stop between the two (or a lost answer to the first)
 * finds that key and writes only the mark, and never adds another. Then ESS, api-keys and
 * nvcf-api are restarted (their pods read the keys when they start) and must roll out: ESS
 * refuses to start on a key set it cannot use.
 */
export const MekRotationProvider = defineProvider<MekRotationInputs, MekRotationOutputs>({
    describe: () => WHAT,
    secrets: ["openbaoToken"],
    check: (news, olds) => {
        const failures: CheckFailure[] = [];
        if (olds?.rotation !== undefined && news.rotation < olds.rotation) {
            failures.push({
                property: "rotation",
                reason:
                    `credentialRotation.mekRotations went from ${olds.rotation} to ${news.rotation}: a rotation is not undone ` +
                    `(every key is kept, the newest is current); set it back to ${olds.rotation}`,
            });
        }
        return failures;
    },
    id: () => kvName(MEK_STORED_DATA),
    create: apply,
    importRefused: "importing a MEK rotation is not supported; declare it instead",
    read: async (_id, props, ctx) => {
        const { members, leader } = await openBaoLeader(props, ctx, WHAT);
        const stored = await readKv(members, leader, MEK_STORED_DATA);
        if (!stored) return props;
        const { data, kids } = readMek(stored.data);
        return { ...props, currentKid: data.current_kid, kids };
    },
});

async function apply(inputs: MekRotationInputs, ctx: ProviderContext): Promise<MekRotationOutputs> {
    const { kube, members, leader } = await openBaoLeader(inputs, ctx, WHAT);
    let stored = await readKv(members, leader, MEK_STORED_DATA);
    if (!stored) {
        if (inputs.rotation === 0) return { ...inputs, currentKid: "", kids: [], restarted: [] };
        throw new Error(
            `${WHAT}: ${kvName(MEK_STORED_DATA)} does not exist, so there is no key to rotate; ` +
                `the openbao-server release's migrations write it at install (kubectl -n ${inputs.namespace} logs job/openbao-server-migrations)`,
        );
    }
    let mek = checked(stored.data);
    const mark = Number(stored.customMetadata?.[MEK_ROTATION_MARK] ?? 0);
    if (inputs.rotation > mark) {
        // A run that stopped after its key write and before the mark (or lost the write's answer) left its key,
        // which names the rotation: only the mark is left to write.
        const written = kidOfRotation(mek.kids, inputs.rotation);
        if (written) {
            ctx.say(`${WHAT}: ${written}, the key of rotation ${inputs.rotation}, was written by a run that stopped before marking it`);
        } else {
            const kid = rotationKid(ctx.options.now?.() ?? new Date(), inputs.rotation);
            const next = rotateMek(mek.data, kid);
            // Check-and-set on the version read: a concurrent writer makes this fail instead of losing a key.
            await members.write(leader, kvDataPath(MEK_STORED_DATA), { options: { cas: stored.version }, data: next });
            stored = await readKv(members, leader, MEK_STORED_DATA);
            const after = readMek(stored!.data);
            const lost = mek.kids.filter((k) => !after.kids.includes(k));
            if (after.data.current_kid !== kid || lost.length > 0) {
                throw new Error(`${WHAT}: ${kvName(MEK_STORED_DATA)} read back does not hold the new key first and every old one`);
            }
            ctx.say(`${WHAT}: ${kid} is the current MEK; ${mek.kids.length} older key(s) kept (rotation ${inputs.rotation})`);
            mek = after;
        }
        // Last, once a key set read from OpenBao holds the rotation's key, so a mark never stands for a key that is not
        // there. kv-v2 keeps custom metadata across data writes and replaces all of it on a metadata write, so the
        // other entries read are sent along.
        await members.write(leader, kvMetadataPath(MEK_STORED_DATA), {
            custom_metadata: { ...stored!.customMetadata, [MEK_ROTATION_MARK]: String(inputs.rotation) },
        });
    }
    const restarted = await restartReaders(kube, inputs.readers, stored!.createdTime, {
        what: WHAT,
        timeoutSeconds: inputs.timeoutSeconds,
        pollMs: ctx.options.pollMs ?? inputs.pollSeconds * 1000,
        say: ctx.say,
    });
    return { ...inputs, currentKid: mek.data.current_kid, kids: mek.kids, restarted };
}

const kvMetadataPath = (t: KvTarget) => `${t.mount}/metadata/${t.key}`;

/** The stored key set, or a stop before anything is written that names what is wrong with it. */
function checked(data: Readonly<Record<string, unknown>>): ReturnType<typeof readMek> {
    try {
        return readMek(data);
    } catch (err) {
        throw new Error(
            `${WHAT}: ${kvName(MEK_STORED_DATA)} is not a key set ESS could use (${(err as Error).message}); nothing was written`,
            { cause: err },
        );
    }
}

export type MekRotationArgs = { [K in keyof MekRotationInputs]: pulumi.Input<MekRotationInputs[K]> };
