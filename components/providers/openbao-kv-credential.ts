import type * as pulumi from "@pulumi/pulumi";
import type { KvTarget } from "../../lib/openbao/contract";
import type { OpenBaoReach } from "../../lib/openbao/access";
import { dockerAuthProblem, holds, kvName, latestVersion, readKv, writeKv, type KvVersion } from "../../lib/openbao/kv-credential";
import { restartReaders, type CredentialReader } from "../../lib/openbao/readers";
import { openBaoLeader } from "./openbao-leader";
import { defineProvider, UNKNOWN_INPUT, type CheckFailure, type ProviderContext } from "./kit";
import { messageOf } from "../../lib/text/message-of";

/** One credential kept in OpenBao's kv-v2 secrets, and who reads it. */
export interface KvCredentialInputs extends OpenBaoReach {
    /** What it is, in messages ("the sidecar image-pull credential"). */
    readonly credential: string;
    /** Every place it is kept; each holds exactly `data`. */
    readonly targets: readonly KvTarget[];
    /** The fields, a Pulumi secret: never in a message or a plain state field. */
    readonly data: Readonly<Record<string, string>>;
    /** The format each field must have, checked before the write and on the value read back. */
    readonly format?: "docker-auth";
    /** Restarted when their pods started before the credential's current version was written. */
    readonly readers: readonly CredentialReader[];
    readonly timeoutSeconds: number;
    readonly pollSeconds: number;
}

export interface KvCredentialOutputs extends KvCredentialInputs {
    /** The places the last run wrote (those that held another value). */
    readonly written: string[];
    /** The Deployments the last run restarted. */
    readonly restarted: string[];
    /** Places a refresh found holding another value (someone wrote it by hand): the next `up` writes them again. */
    readonly drifted: string[];
}

/**
 * A credential NVIDIA's OpenBao migrations write only when absent, kept equal to the stack file:
 * the runbook's rotation (`bao kv put`, then `kubectl rollout restart`) as a resource. Create and
 * update write each place that holds another value (at the active member: a standby would only
 * forward the request there, the chart sets disable_standby_reads), read it back, then restart every reader whose pods started before the
 * current version was written and wait for its rollout. Every step looks before it acts, so a run
 * stopped half-way finishes on the next. Delete leaves the credential: OpenBao goes with the stack.
 */
export const KvCredentialProvider = defineProvider<KvCredentialInputs, KvCredentialOutputs>({
    describe: (inputs) => inputs.credential,
    secrets: ["openbaoToken"],
    check: (news) => {
        const failures: CheckFailure[] = [];
        for (const [field, value] of Object.entries(news.data ?? {})) {
            // An unknown value (preview before its source exists) is checked at up.
            if (typeof value !== "string" || value === UNKNOWN_INPUT) continue;
            if (value === "") failures.push({ property: "data", reason: `${news.credential}: field ${field} is empty` });
            const problem = news.format === "docker-auth" ? dockerAuthProblem(value) : undefined;
            if (problem) {
                failures.push({
                    property: "data",
                    reason: `${news.credential}: field ${field} must be base64("<user>:<key>") (a raw docker auth string), but ${problem}`,
                });
            }
        }
        return failures;
    },
    changes: async (olds) => (olds.drifted ?? []).length > 0,
    id: (inputs) => inputs.targets.map(kvName).join(","),
    create: apply,
    importRefused: "importing a credential is not supported; declare it instead",
    read: async (_id, props, ctx) => {
        const { members, leader } = await openBaoLeader(props, ctx, props.credential);
        const drifted: string[] = [];
        for (const t of props.targets) if (!holds(await readKv(members, leader, t), props.data)) drifted.push(kvName(t));
        return { ...props, drifted };
    },
});

async function apply(inputs: KvCredentialInputs, ctx: ProviderContext): Promise<KvCredentialOutputs> {
    const { kube, members, leader } = await openBaoLeader(inputs, ctx, inputs.credential);
    const written: string[] = [];
    const versions: KvVersion[] = [];
    for (const t of inputs.targets) {
        let stored = await readKv(members, leader, t);
        if (!holds(stored, inputs.data)) {
            await writeKv(members, leader, t, inputs.data).catch((err: unknown) => {
                throw new Error(`${inputs.credential}: writing ${kvName(t)} failed: ${messageOf(err)}. ${remains(written)}`);
            });
            stored = await readKv(members, leader, t);
            if (!holds(stored, inputs.data)) {
                throw new Error(`${inputs.credential}: ${kvName(t)} does not hold the value just written. ${remains(written)}`);
            }
            written.push(kvName(t));
            ctx.say(`${inputs.credential}: wrote ${kvName(t)} (version ${stored!.version})`);
        }
        // The format rule holds for what OpenBao keeps, not only for what was sent.
        for (const [field, value] of Object.entries(stored!.data)) {
            const problem = inputs.format === "docker-auth" && typeof value === "string" ? dockerAuthProblem(value) : undefined;
            if (problem)
                throw new Error(`${inputs.credential}: ${kvName(t)} field ${field} read back is not a raw docker auth string: ${problem}`);
        }
        versions.push(stored!);
    }
    const latest = latestVersion(versions);
    const restarted = latest
        ? await restartReaders(kube, inputs.readers, latest.createdTime, {
              what: inputs.credential,
              timeoutSeconds: inputs.timeoutSeconds,
              pollMs: ctx.options.pollMs ?? inputs.pollSeconds * 1000,
              say: ctx.say,
          })
        : [];
    return { ...inputs, written, restarted, drifted: [] };
}

/** What a run stopped before the restarts did and what remains. */
function remains(written: readonly string[]): string {
    return `${written.length > 0 ? `Written before it: ${written.join(", ")}. ` : ""}Nothing was restarted yet; run pulumi up again to finish.`;
}

export type KvCredentialArgs = { [K in keyof KvCredentialInputs]: pulumi.Input<KvCredentialInputs[K]> };
