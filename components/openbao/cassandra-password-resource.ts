import * as pulumi from "@pulumi/pulumi";
import type { Kube } from "../../lib/kubernetes/client";
import { connect } from "../../lib/kubernetes/connect";
import type { KubeSecrets } from "../../lib/cluster-access/reach";
import { runRotationJob } from "../cassandra/run-job";
import { CASSANDRA, CASSANDRA_CREDS_KEY, CASSANDRA_SERVICE_ROLES } from "../contracts/cassandra";
import type { KvTarget } from "../contracts/openbao";
import { changedInputs, readKubeSecrets, secretConfig } from "../dynamic/base";
import type { OpenBaoReach } from "./access";
import { kvName, latestVersion, mergeKv, readKv, type KvVersion } from "./kv-credential";
import { activeMember } from "./leader";
import type { OpenBaoMembers } from "./members";
import { restartReaders, type CredentialReader } from "./readers";

export interface CassandraPasswordInputs extends OpenBaoReach {
    /** `cassandraPassword`, a Pulumi secret: every service role's password. */
    readonly password: string;
    /** The chart's superuser login, which may change any role's password; a Pulumi secret. */
    readonly superuser: { readonly user: string; readonly password: string };
    /** The releases whose services log in to Cassandra, restarted after a change. */
    readonly readers: readonly CredentialReader[];
    readonly timeoutSeconds: number;
    readonly pollSeconds: number;
}

export interface CassandraPasswordOutputs extends CassandraPasswordInputs {
    /** Roles whose password the last run changed in Cassandra. */
    readonly rotated: string[];
    /** The OpenBao places the last run wrote. */
    readonly written: string[];
    readonly restarted: string[];
    /** Places a refresh found holding another password: the next `up` rotates again. */
    readonly drifted: string[];
}

export interface CassandraPasswordProviderOptions {
    readonly kube?: Kube;
    readonly say?: (line: string) => void;
    readonly pollMs?: number;
}

const WHAT = "the Cassandra password rotation";

/** Each service's login in OpenBao, by role. */
const TARGETS: readonly { role: string; target: KvTarget }[] = Object.entries(CASSANDRA_SERVICE_ROLES).map(([role, mount]) => ({
    role,
    target: { mount, key: CASSANDRA_CREDS_KEY },
}));

/**
 * `cassandraPassword` kept true after the first install, where NVIDIA's migrations set it once
 * (the roles' `CREATE ROLE IF NOT EXISTS`, OpenBao's write-once `cassandra/creds`). When a
 * service's login in OpenBao holds another password: a Job in Cassandra's namespace changes each
 * service role's password as the superuser and logs in with it (Cassandra first: open
 * connections stay, and OpenBao must not hand out a password Cassandra refuses), then each login
 * in OpenBao is written (check-and-set, other fields kept), then the services restart. Every
 * step looks before it acts, so a rerun finishes a stopped rotation.
 */
export class CassandraPasswordProvider implements pulumi.dynamic.ResourceProvider<CassandraPasswordInputs, CassandraPasswordOutputs> {
    private secrets: KubeSecrets = {};
    private token?: string;

    constructor(private readonly options: CassandraPasswordProviderOptions = {}) {}

    async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
        this.secrets = readKubeSecrets(req);
        this.token = secretConfig(req, "openbaoToken");
    }

    async check(
        _olds: CassandraPasswordInputs,
        news: CassandraPasswordInputs,
    ): Promise<pulumi.dynamic.CheckResult<CassandraPasswordInputs>> {
        const failures = news.password === "" ? [{ property: "password", reason: `${WHAT}: cassandraPassword is empty` }] : [];
        return { inputs: news, failures };
    }

    async diff(_id: string, olds: CassandraPasswordOutputs, news: CassandraPasswordInputs): Promise<pulumi.dynamic.DiffResult> {
        return { changes: changedInputs(olds, news).length > 0 || (olds.drifted ?? []).length > 0 };
    }

    async create(inputs: CassandraPasswordInputs): Promise<pulumi.dynamic.CreateResult<CassandraPasswordOutputs>> {
        return { id: `${CASSANDRA.namespace}/${CASSANDRA.statefulSet}`, outs: await this.apply(inputs) };
    }

    async update(
        _id: string,
        _olds: CassandraPasswordOutputs,
        news: CassandraPasswordInputs,
    ): Promise<pulumi.dynamic.UpdateResult<CassandraPasswordOutputs>> {
        return { outs: await this.apply(news) };
    }

    async read(id: string, props?: CassandraPasswordOutputs): Promise<pulumi.dynamic.ReadResult<CassandraPasswordOutputs>> {
        if (!props) throw new Error("importing a Cassandra password rotation is not supported; declare it instead");
        const { members, leader } = await this.leader(props);
        const drifted = (await readLogins(members, leader)).filter(holdsOther(props.password)).map((s) => kvName(s.target));
        return { id, props: { ...props, drifted } };
    }

    async delete(): Promise<void> {}

    private say(line: string): void {
        (this.options.say ?? ((l: string) => process.stderr.write(`${l}\n`)))(line);
    }

    private async leader(inputs: CassandraPasswordInputs): Promise<{ kube: Kube; members: OpenBaoMembers; leader: string }> {
        const kube = this.options.kube ?? (await connect(inputs.reach, this.secrets, 30));
        return { kube, ...(await activeMember(kube, inputs, this.token, WHAT)) };
    }

    private async apply(inputs: CassandraPasswordInputs): Promise<CassandraPasswordOutputs> {
        const { kube, members, leader } = await this.leader(inputs);
        const pollMs = this.options.pollMs ?? inputs.pollSeconds * 1000;
        const logins = await readLogins(members, leader);
        const stale = logins.filter(holdsOther(inputs.password));
        let rotated: string[] = [];
        if (stale.length > 0) {
            const result = await runRotationJob(kube, {
                roles: TARGETS.map((t) => t.role),
                superuser: inputs.superuser,
                password: inputs.password,
                timeoutSeconds: inputs.timeoutSeconds,
                pollMs,
                say: (line) => this.say(line),
            });
            if (result.failed) {
                const done = result.rotated.length > 0 ? ` Roles already changed: ${result.rotated.join(", ")}.` : "";
                throw new Error(
                    `${WHAT}: the Job in ${CASSANDRA.namespace} failed: ${result.failed}.${done} OpenBao still holds the old ` +
                        `password and nothing was restarted; run pulumi up again to finish`,
                );
            }
            rotated = result.rotated;
            this.say(`${WHAT}: Cassandra roles changed: ${rotated.join(", ") || "none"}; already set: ${result.kept.join(", ") || "none"}`);
        }
        const written: string[] = [];
        for (const s of stale) {
            // The new password over the version read; sis-api's login holds more fields, which stay.
            const after = await mergeKv(members, leader, s.target, s.kv!, { password: inputs.password }).catch((err: unknown) => {
                const before = written.length > 0 ? ` Written before it: ${written.join(", ")}.` : "";
                throw new Error(
                    `${WHAT}: writing ${kvName(s.target)} failed: ${(err as Error).message}. Cassandra has the new password.${before} ` +
                        `Nothing was restarted; run pulumi up again to finish`,
                    { cause: err },
                );
            });
            written.push(kvName(s.target));
            this.say(`${WHAT}: wrote ${kvName(s.target)} (version ${after!.version})`);
            // The version just written stands for this login below, as OpenBao would answer it now.
            s.kv = after;
        }
        const latest = latestVersion(logins.map((s) => s.kv));
        const restarted = latest
            ? await restartReaders(kube, inputs.readers, latest.createdTime, {
                  what: WHAT,
                  timeoutSeconds: inputs.timeoutSeconds,
                  pollMs,
                  say: (line) => this.say(line),
              })
            : [];
        return { ...inputs, rotated, written, restarted, drifted: [] };
    }
}

/** A login OpenBao has that holds another password. One it does not have, no service reads (its release is off); the migrations write it when one is. */
function holdsOther(password: string): (login: { kv?: KvVersion }) => boolean {
    return (login) => login.kv !== undefined && login.kv.data.password !== password;
}

/** Every service's login as OpenBao holds it now (kv undefined where there is none). */
async function readLogins(members: OpenBaoMembers, leader: string): Promise<{ role: string; target: KvTarget; kv?: KvVersion }[]> {
    const out: { role: string; target: KvTarget; kv?: KvVersion }[] = [];
    for (const t of TARGETS) out.push({ ...t, kv: await readKv(members, leader, t.target) });
    return out;
}

export type CassandraPasswordArgs = { [K in keyof CassandraPasswordInputs]: pulumi.Input<CassandraPasswordInputs[K]> };

const provider = new CassandraPasswordProvider();

/** Every Cassandra service role's password, in Cassandra and in OpenBao, kept equal to `cassandraPassword`. */
export class CassandraPasswordRotation extends pulumi.dynamic.Resource {
    declare readonly rotated: pulumi.Output<string[]>;
    declare readonly written: pulumi.Output<string[]>;
    declare readonly restarted: pulumi.Output<string[]>;
    declare readonly drifted: pulumi.Output<string[]>;
    constructor(name: string, args: CassandraPasswordArgs, opts?: pulumi.CustomResourceOptions) {
        super(
            provider,
            name,
            { ...args, rotated: undefined, written: undefined, restarted: undefined, drifted: undefined },
            { ...opts, additionalSecretOutputs: ["password", "superuser"] },
            "nvcf",
            "CassandraPasswordRotation",
        );
    }
}
