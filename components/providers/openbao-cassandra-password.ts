import type * as pulumi from "@pulumi/pulumi";
import { runRotationJob } from "../../lib/cassandra/run-job";
import { CASSANDRA, CASSANDRA_CREDS_KEY, CASSANDRA_SERVICE_ROLES } from "../../lib/cassandra/contract";
import type { KvTarget } from "../../lib/openbao/contract";
import type { OpenBaoReach } from "../../lib/openbao/access";
import { kvName, latestVersion, mergeKv, readKv, type KvVersion } from "../../lib/openbao/kv-credential";
import { openBaoLeader } from "./openbao-leader";
import type { OpenBaoMembers } from "../../lib/openbao/members";
import { restartReaders, type CredentialReader } from "../../lib/openbao/readers";
import { defineProvider, type ProviderContext } from "./kit";

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
export const CassandraPasswordProvider = defineProvider<CassandraPasswordInputs, CassandraPasswordOutputs>({
    describe: () => WHAT,
    secrets: ["openbaoToken"],
    check: (news) => (news.password === "" ? [{ property: "password", reason: `${WHAT}: cassandraPassword is empty` }] : []),
    changes: async (olds) => (olds.drifted ?? []).length > 0,
    id: () => `${CASSANDRA.namespace}/${CASSANDRA.statefulSet}`,
    create: apply,
    importRefused: "importing a Cassandra password rotation is not supported; declare it instead",
    read: async (_id, props, ctx) => {
        const { members, leader } = await openBaoLeader(props, ctx, WHAT);
        const drifted = (await readLogins(members, leader)).filter(holdsOther(props.password)).map((s) => kvName(s.target));
        return { ...props, drifted };
    },
});

async function apply(inputs: CassandraPasswordInputs, ctx: ProviderContext): Promise<CassandraPasswordOutputs> {
    const { kube, members, leader } = await openBaoLeader(inputs, ctx, WHAT);
    const pollMs = ctx.options.pollMs ?? inputs.pollSeconds * 1000;
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
            say: ctx.say,
        });
        if (result.failed) {
            const done = result.rotated.length > 0 ? ` Roles already changed: ${result.rotated.join(", ")}.` : "";
            throw new Error(
                `${WHAT}: the Job in ${CASSANDRA.namespace} failed: ${result.failed}.${done} OpenBao still holds the old ` +
                    `password and nothing was restarted; run pulumi up again to finish`,
            );
        }
        rotated = result.rotated;
        ctx.say(`${WHAT}: Cassandra roles changed: ${rotated.join(", ") || "none"}; already set: ${result.kept.join(", ") || "none"}`);
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
        ctx.say(`${WHAT}: wrote ${kvName(s.target)} (version ${after!.version})`);
        // The version just written stands for this login below, as OpenBao would answer it now.
        s.kv = after;
    }
    const latest = latestVersion(logins.map((s) => s.kv));
    const restarted = latest
        ? await restartReaders(kube, inputs.readers, latest.createdTime, {
              what: WHAT,
              timeoutSeconds: inputs.timeoutSeconds,
              pollMs,
              say: ctx.say,
          })
        : [];
    return { ...inputs, rotated, written, restarted, drifted: [] };
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
