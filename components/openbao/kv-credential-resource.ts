import * as pulumi from "@pulumi/pulumi";
import type { Kube } from "../../lib/kubernetes/client";
import type { KvTarget } from "../contracts/openbao";
import { changedInputs, readKubeSecrets, secretConfig, UNKNOWN_INPUT } from "../dynamic/base";
import { connect } from "../../lib/kubernetes/connect";
import type { KubeSecrets } from "../../lib/cluster-access/reach";
import type { OpenBaoReach } from "./access";
import { dockerAuthProblem, holds, kvName, latestVersion, readKv, writeKv, type KvVersion } from "./kv-credential";
import { restartReaders, type CredentialReader } from "./readers";
import type { OpenBaoMembers } from "./members";
import { activeMember } from "./leader";

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

export interface KvCredentialProviderOptions {
    /** Replaces the real API server (tests). */
    readonly kube?: Kube;
    readonly say?: (line: string) => void;
    readonly pollMs?: number;
}

/**
 * A credential NVIDIA's OpenBao migrations write only when absent, kept equal to the stack file:
 * the runbook's rotation (`bao kv put`, then `kubectl rollout restart`) as a resource. Create and
 * update write each place that holds another value (at the active member: a standby would only
 * forward the request there, the chart sets disable_standby_reads), read it back, then restart every reader whose pods started before the
 * current version was written and wait for its rollout. Every step looks before it acts, so a run
 * stopped half-way finishes on the next. Delete leaves the credential: OpenBao goes with the stack.
 */
export class KvCredentialProvider implements pulumi.dynamic.ResourceProvider<KvCredentialInputs, KvCredentialOutputs> {
    private secrets: KubeSecrets = {};
    // Set by configure() in the provider's own process; never serialized with the program.
    private token?: string;

    constructor(private readonly options: KvCredentialProviderOptions = {}) {}

    async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
        this.secrets = readKubeSecrets(req);
        this.token = secretConfig(req, "openbaoToken");
    }

    async check(_olds: KvCredentialInputs, news: KvCredentialInputs): Promise<pulumi.dynamic.CheckResult<KvCredentialInputs>> {
        const failures: pulumi.dynamic.CheckFailure[] = [];
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
        return { inputs: news, failures };
    }

    async diff(_id: string, olds: KvCredentialOutputs, news: KvCredentialInputs): Promise<pulumi.dynamic.DiffResult> {
        const changed = changedInputs(olds, news);
        return { changes: changed.length > 0 || (olds.drifted ?? []).length > 0 };
    }

    async create(inputs: KvCredentialInputs): Promise<pulumi.dynamic.CreateResult<KvCredentialOutputs>> {
        return { id: inputs.targets.map(kvName).join(","), outs: await this.apply(inputs) };
    }

    async update(
        _id: string,
        _olds: KvCredentialOutputs,
        news: KvCredentialInputs,
    ): Promise<pulumi.dynamic.UpdateResult<KvCredentialOutputs>> {
        return { outs: await this.apply(news) };
    }

    async read(id: string, props?: KvCredentialOutputs): Promise<pulumi.dynamic.ReadResult<KvCredentialOutputs>> {
        if (!props) throw new Error("importing a credential is not supported; declare it instead");
        const { members, leader } = await this.leader(props);
        const drifted: string[] = [];
        for (const t of props.targets) if (!holds(await readKv(members, leader, t), props.data)) drifted.push(kvName(t));
        return { id, props: { ...props, drifted } };
    }

    async delete(): Promise<void> {}

    private say(line: string): void {
        (this.options.say ?? ((l: string) => process.stderr.write(`${l}\n`)))(line);
    }

    private async leader(inputs: KvCredentialInputs): Promise<{ kube: Kube; members: OpenBaoMembers; leader: string }> {
        const kube = this.options.kube ?? (await connect(inputs.reach, this.secrets, 30));
        return { kube, ...(await activeMember(kube, inputs, this.token, inputs.credential)) };
    }

    private async apply(inputs: KvCredentialInputs): Promise<KvCredentialOutputs> {
        const { kube, members, leader } = await this.leader(inputs);
        const written: string[] = [];
        const versions: KvVersion[] = [];
        for (const t of inputs.targets) {
            let stored = await readKv(members, leader, t);
            if (!holds(stored, inputs.data)) {
                await writeKv(members, leader, t, inputs.data).catch((err: unknown) => {
                    throw new Error(`${inputs.credential}: writing ${kvName(t)} failed: ${message(err)}. ${remains(written)}`);
                });
                stored = await readKv(members, leader, t);
                if (!holds(stored, inputs.data)) {
                    throw new Error(`${inputs.credential}: ${kvName(t)} does not hold the value just written. ${remains(written)}`);
                }
                written.push(kvName(t));
                this.say(`${inputs.credential}: wrote ${kvName(t)} (version ${stored!.version})`);
            }
            // The format rule holds for what OpenBao keeps, not only for what was sent.
            for (const [field, value] of Object.entries(stored!.data)) {
                const problem = inputs.format === "docker-auth" && typeof value === "string" ? dockerAuthProblem(value) : undefined;
                if (problem)
                    throw new Error(
                        `${inputs.credential}: ${kvName(t)} field ${field} read back is not a raw docker auth string: ${problem}`,
                    );
            }
            versions.push(stored!);
        }
        const latest = latestVersion(versions);
        const restarted = latest
            ? await restartReaders(kube, inputs.readers, latest.createdTime, {
                  what: inputs.credential,
                  timeoutSeconds: inputs.timeoutSeconds,
                  pollMs: this.options.pollMs ?? inputs.pollSeconds * 1000,
                  say: (line) => this.say(line),
              })
            : [];
        return { ...inputs, written, restarted, drifted: [] };
    }
}

/** What a run stopped before the restarts did and what remains. */
function remains(written: readonly string[]): string {
    return `${written.length > 0 ? `Written before it: ${written.join(", ")}. ` : ""}Nothing was restarted yet; run pulumi up again to finish.`;
}

function message(err: unknown): string {
    return err instanceof Error ? err.message : String(err);
}

export type KvCredentialArgs = { [K in keyof KvCredentialInputs]: pulumi.Input<KvCredentialInputs[K]> };

const provider = new KvCredentialProvider();

/** A credential in OpenBao kept equal to the stack file; `drifted` shows places a refresh found changed. */
export class OpenBaoKvCredential extends pulumi.dynamic.Resource {
    declare readonly written: pulumi.Output<string[]>;
    declare readonly restarted: pulumi.Output<string[]>;
    declare readonly drifted: pulumi.Output<string[]>;
    constructor(name: string, args: KvCredentialArgs, opts?: pulumi.CustomResourceOptions) {
        super(
            provider,
            name,
            { ...args, written: undefined, restarted: undefined, drifted: undefined },
            // The fields stay secret in the outputs as in the inputs.
            { ...opts, additionalSecretOutputs: ["data"] },
            "nvcf",
            "OpenBaoKvCredential",
        );
    }
}
