/**
 * The Cassandra password rotation against the real systems it changes: a single-node Cassandra
 * 5.0.8 with the chart's authentication (its service roles made as NVIDIA's migrations make
 * them), a three-member OpenBao 2.5.5 Raft cluster holding each service's login as the OpenBao
 * migrations write it, and a real kube-apiserver whose real job controller runs the rotation
 * Job. The suite's Job kubelet runs the Job's container as a process here, with cqlsh, and
 * reports its end as a kubelet does; the Service address is this machine's Cassandra.
 *
 * Tools: scripts/e2e/build-tools.sh (cassandra and cqlsh; bao needs OPENBAO_SOURCE). Run: npm run test:e2e.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import {
    CASSANDRA,
    CASSANDRA_CREDS_KEY,
    CASSANDRA_PASSWORD_CHANGE_REFUSED,
    CASSANDRA_SERVICE_ROLES,
    CASSANDRA_SUPERUSER,
} from "../../lib/cassandra/contract";
import { OPENBAO } from "../../lib/openbao/contract";
import { ROTATION_JOB, ROTATION_SCRIPT } from "../../lib/cassandra/rotation-job";
import {
    CassandraPasswordProvider,
    type CassandraPasswordInputs,
    type CassandraPasswordOutputs,
} from "../../components/providers/openbao-cassandra-password";
import { httpKube, type Kube as ProgramKube } from "../../lib/kubernetes/client";
import { apiServer } from "../../lib/cluster-access/access";
import { findTools } from "../../scripts/e2e/tools";
import { OPENBAO_REACH } from "../support/openbao-reach";
import { Kube, LocalCluster, ownClusterSkip, podAddress, until } from "./cluster";
import { CassandraServer } from "./real-cassandra";
import { JobKubelet } from "./job-kubelet";
import { OpenBaoPods, openbaoStatefulSet } from "./openbao-pods";
import { mountKvV2 } from "./openbao-migrations";
import type { BaoCluster } from "./real-openbao";

const MIN = 60_000;
const VAULT = "vault-system";
const ROLES = Object.keys(CASSANDRA_SERVICE_ROLES);
const podIp = podAddress;

const found = findTools();
const tools = found.tools;
const skip = ownClusterSkip(found, "the real Cassandra and OpenBao run behind this suite's own API server");

/** The cassandra chart's StatefulSet as far as the Job reads it: its `cassandra` container's image and the pull secrets. */
const cassandraStatefulSet = {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: CASSANDRA.statefulSet, namespace: CASSANDRA.namespace },
    spec: {
        serviceName: "cassandra-headless",
        replicas: 0,
        selector: { matchLabels: { "app.kubernetes.io/name": "cassandra" } },
        template: {
            metadata: { labels: { "app.kubernetes.io/name": "cassandra" } },
            spec: {
                imagePullSecrets: [{ name: "nvcr-pull" }],
                containers: [{ name: CASSANDRA.container, image: "nvcr.io/nvidia/nvcf/cassandra:5.0.8-nv-2.0.1" }],
            },
        },
    },
};

describe("end-to-end: the Cassandra password rotation against a real Cassandra, OpenBao and job controller", { skip }, () => {
    let work = "";
    let cluster: LocalCluster;
    let kube: Kube;
    let program: ProgramKube;
    let pods: OpenBaoPods;
    let bao: BaoCluster;
    let cassandra: CassandraServer;
    let kubelet: JobKubelet;
    const said: string[] = [];

    const provider = () => new CassandraPasswordProvider({ kube: program, pollMs: 200, say: (l) => said.push(l) });
    const inputs = (password: string, superuser: { user: string; password: string } = CASSANDRA_SUPERUSER): CassandraPasswordInputs => ({
        ...OPENBAO_REACH,
        password,
        superuser,
        // Cassandra's and OpenBao's side: the readers' restarts run in test/cassandra-rotation.test.ts against the fake Deployments.
        readers: [],
        timeoutSeconds: 120,
        pollSeconds: 1,
    });
    const login = async (role: string) => (await bao.root("GET", `${CASSANDRA_SERVICE_ROLES[role]}/data/${CASSANDRA_CREDS_KEY}`)).body.data;
    const logsIn = async (role: string, password: string) =>
        (await cassandra.cql(role, password, "SELECT key FROM system.local;")).code === 0;

    before(async () => {
        work = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-e2e-cassandra-"));
        fs.mkdirSync(path.join(work, "cassandra"));
        cassandra = new CassandraServer(tools!.cassandra, tools!.cqlsh, path.join(work, "cassandra"));
        cluster = new LocalCluster(tools!);
        await Promise.all([cluster.boot(), cassandra.start()]);
        kube = new Kube(cluster.kubeconfig);
        program = httpKube(await apiServer({ kubeconfig: cluster.kubeconfig }), { timeoutMs: 10_000, retries: 0 });
        for (const ns of [VAULT, CASSANDRA.namespace]) {
            const res = await kube.request("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
            assert.equal(res.status, 201, res.text);
        }
        pods = new OpenBaoPods(tools!, work, kube, VAULT, podIp!);
        bao = pods.bao;
        const sts = await kube.request("POST", `/apis/apps/v1/namespaces/${VAULT}/statefulsets`, openbaoStatefulSet(VAULT, "1"));
        assert.equal(sts.status, 201, sts.text);
        const cass = await kube.request("POST", `/apis/apps/v1/namespaces/${CASSANDRA.namespace}/statefulsets`, cassandraStatefulSet);
        assert.equal(cass.status, 201, cass.text);
        cluster.startControllerManager(tools!.kubeControllerManager, ["statefulset-controller", "job-controller"]);
        await pods.start();
        await until("three Ready member pods", async () => pods.kubelet.uids().every(Boolean), 2 * MIN);
        const secret = await kube.request("POST", `/api/v1/namespaces/${VAULT}/secrets`, {
            apiVersion: "v1",
            kind: "Secret",
            metadata: { name: OPENBAO.rootTokenSecret.name },
            data: { [OPENBAO.rootTokenSecret.key]: Buffer.from(bao.rootToken).toString("base64") },
        });
        assert.equal(secret.status, 201, secret.text);
        kubelet = new JobKubelet(
            kube,
            CASSANDRA.namespace,
            work,
            // The pod network: the chart's Service is this machine's Cassandra.
            (env) => ({ ...env, CASSANDRA_HOSTS: "127.0.0.1", CASSANDRA_PORT: String(cassandra.port) }),
            path.dirname(tools!.cqlsh),
        );
        kubelet.start();

        // The migrations at install: each keyspace's role (02_init_roles.up.sql), each service's login in OpenBao (write_secrets_kv).
        for (const role of ROLES) {
            const made = await cassandra.cql(
                CASSANDRA_SUPERUSER.user,
                CASSANDRA_SUPERUSER.password,
                `CREATE ROLE IF NOT EXISTS ${role} with login = true and password = 'installed-0';`,
            );
            assert.equal(made.code, 0, made.out);
        }
        for (const [role, mount] of Object.entries(CASSANDRA_SERVICE_ROLES)) {
            await mountKvV2(bao.root, mount, CASSANDRA_CREDS_KEY);
            const at = `${mount}/data/${CASSANDRA_CREDS_KEY}`;
            const extra = role === "sis_api_app_v0" ? { tls_cert: "replace", public_key: "replace", private_key: "replace" } : {};
            const written = await bao.root("POST", at, { data: { username: role, password: "installed-0", ...extra } });
            assert.equal(written.status, 200, written.text);
        }
    });

    after(async () => {
        await kubelet?.stop();
        await Promise.allSettled([pods?.stop(), cassandra?.stop(), cluster?.stop()]);
        if (process.exitCode) console.error(`logs kept in ${work} and ${cluster?.dir}`);
        else {
            fs.rmSync(work, { recursive: true, force: true });
            cluster?.removeDir();
        }
    });

    let outs: CassandraPasswordOutputs;

    /**
     * A password change by hand, as an operator would make it: the role may have changed less than
     * 5 s ago (its creation, or the case before), and Cassandra refuses until then, so wait it out.
     */
    async function changeByHand(role: string): Promise<{ code: number; out: string }> {
        for (let attempt = 0; ; attempt++) {
            const res = await cassandra.cql(
                CASSANDRA_SUPERUSER.user,
                CASSANDRA_SUPERUSER.password,
                `ALTER ROLE ${role} WITH PASSWORD = 'by-hand';`,
            );
            if (res.code === 0 || !res.out.includes(CASSANDRA_PASSWORD_CHANGE_REFUSED) || attempt === 10) return res;
            await new Promise((r) => setTimeout(r, 1000));
        }
    }

    it("declared with the password the migrations set: no Job, nothing written", { timeout: 2 * MIN }, async () => {
        ({ outs } = (await provider().create(inputs("installed-0"))) as { outs: CassandraPasswordOutputs });
        assert.deepEqual([outs.rotated, outs.written], [[], []]);
        assert.deepEqual(kubelet.ran, []);
        assert.equal((await login("ess_api_app_v0")).metadata.version, 1);
    });

    it(
        "a new password: the job controller's Job changes every role in Cassandra, then OpenBao's logins; the old password is refused; a rerun runs no Job",
        { timeout: 5 * MIN },
        async () => {
            const p = provider();
            assert.equal((await p.diff("id", outs, inputs("rotated-1"))).changes, true);
            // A role whose password changed less than 5 s ago: Cassandra refuses the Job's first ALTER, and the Job retries it.
            const recent = await changeByHand("api_keys_api_app_v0");
            assert.equal(recent.code, 0, recent.out);
            ({ outs } = (await p.update("id", outs, inputs("rotated-1"))) as { outs: CassandraPasswordOutputs });
            assert.deepEqual(kubelet.errors, []);
            assert.equal(kubelet.ran.length, 1);
            assert.deepEqual([...outs.rotated].sort(), ROLES);
            assert.equal(outs.written.length, ROLES.length);
            for (const role of ROLES) {
                assert.ok(await logsIn(role, "rotated-1"), `${role} logs in with the new password`);
                const stored = await login(role);
                assert.deepEqual([stored.data.username, stored.data.password, stored.metadata.version], [role, "rotated-1", 2]);
            }
            assert.deepEqual(
                (await login("sis_api_app_v0")).data,
                { username: "sis_api_app_v0", password: "rotated-1", tls_cert: "replace", public_key: "replace", private_key: "replace" },
                "sis-api's other fields kept",
            );
            // Cassandra's role cache may take the old password for 2 s more.
            await until("the old password refused", async () => !(await logsIn("ess_api_app_v0", "installed-0")), 30_000);
            // The Job and its Secret are gone; the passwords were only in the Secret, the Job's environment names it.
            for (const at of [
                `/apis/batch/v1/namespaces/${CASSANDRA.namespace}/jobs/${ROTATION_JOB}`,
                `/api/v1/namespaces/${CASSANDRA.namespace}/secrets/${ROTATION_JOB}`,
            ]) {
                assert.equal((await kube.request("GET", at)).status, 404, at);
            }
            assert.ok(!said.join("\n").includes("rotated-1"), "no password in a message");

            const again = (await p.update("id", outs, inputs("rotated-1"))).outs!;
            assert.deepEqual([again.rotated, again.written], [[], []]);
            assert.equal(kubelet.ran.length, 1, "no second Job");
        },
    );

    it(
        "the Job's retry: Cassandra refuses a second change of a role's password within 5 s, and the script waits it out",
        { timeout: 2 * MIN },
        async () => {
            // The script as the Job's container runs it, straight after a change by hand (the Job's start would take seconds).
            const role = "nvcf_api_app_v0";
            const hand = await changeByHand(role);
            assert.equal(hand.code, 0, hand.out);
            const resultFile = path.join(work, "retry.result");
            const run = await new Promise<{ code: number; out: string }>((resolve) => {
                const p = spawn("/bin/sh", ["-c", ROTATION_SCRIPT], {
                    env: {
                        PATH: `${path.dirname(tools!.cqlsh)}:${process.env.PATH}`,
                        CASSANDRA_HOSTS: "127.0.0.1",
                        CASSANDRA_PORT: String(cassandra.port),
                        ROLES: role,
                        RESULT_FILE: resultFile,
                        CASSANDRA_USER: CASSANDRA_SUPERUSER.user,
                        CASSANDRA_PASSWORD: CASSANDRA_SUPERUSER.password,
                        SERVICE_ROLE_PASSWORD: "rotated-1",
                    },
                });
                let out = "";
                p.stdout.on("data", (c: Buffer) => (out += c.toString()));
                p.stderr.on("data", (c: Buffer) => (out += c.toString()));
                p.on("close", (code) => resolve({ code: code ?? 1, out }));
            });
            assert.equal(run.code, 0, run.out);
            assert.match(run.out, new RegExp(`retry ${role}: .*${CASSANDRA_PASSWORD_CHANGE_REFUSED}`));
            assert.equal(fs.readFileSync(resultFile, "utf8"), `rotated ${role}\n`);
            assert.ok(await logsIn(role, "rotated-1"));
        },
    );

    it("a Job that fails stops up with its reason and writes nothing to OpenBao; the next run finishes", { timeout: 5 * MIN }, async () => {
        const p = provider();
        await assert.rejects(
            p.update("id", outs, inputs("rotated-2", { user: CASSANDRA_SUPERUSER.user, password: "not-the-superuser's" })),
            /the Cassandra password rotation: the Job in cassandra-system failed: superuser cassandra: .*Bad credentials.*OpenBao still holds the old password and nothing was restarted; run pulumi up again to finish/,
        );
        assert.equal((await login("ess_api_app_v0")).data.password, "rotated-1");
        assert.ok(await logsIn("ess_api_app_v0", "rotated-1"));
        assert.equal((await kube.request("GET", `/apis/batch/v1/namespaces/${CASSANDRA.namespace}/jobs/${ROTATION_JOB}`)).status, 404);

        ({ outs } = (await p.update("id", outs, inputs("rotated-2"))) as { outs: CassandraPasswordOutputs });
        assert.deepEqual([...outs.rotated].sort(), ROLES);
        for (const role of ROLES) assert.equal((await login(role)).data.password, "rotated-2");
        assert.ok(await logsIn("sis_api_app_v0", "rotated-2"));
    });
});
