import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CASSANDRA_CREDS_KEY, CASSANDRA_SERVICE_ROLES, CASSANDRA_SUPERUSER } from "../lib/cassandra/contract";
import { parseRotationResult, ROTATION_JOB, ROTATION_SCRIPT } from "../lib/cassandra/rotation-job";
import {
    CassandraPasswordProvider,
    type CassandraPasswordInputs,
    type CassandraPasswordOutputs,
} from "../components/providers/openbao-cassandra-password";
import { FakeCassandraJobs } from "./support/fake-cassandra-jobs";
import { OPENBAO_REACH } from "./support/openbao-reach";

// The Cassandra service roles' password rotation: when it runs its Job, what the Job is given,
// what OpenBao gets after it, the readers restarted, and what a failure says, against the fake
// API server (Jobs as the job controller and kubelet end them, the readers' Deployments) and
// OpenBao members. The Job's script itself runs against a real Cassandra in test/e2e/real-cassandra.test.ts.

const ROLES = Object.keys(CASSANDRA_SERVICE_ROLES);

/** The readers as the program declares them, with the Deployment each release's chart makes. */
const READERS = [
    ["ess", "ess-api", "ess-api"],
    ["api-keys", "api-keys", "api-keys"],
    ["sis", "sis-api", "sis"],
    ["nvcf", "nvcf-api", "api"],
    ["nvcf", "nvct-api", "nvct-api"],
    ["nvcf", "nvcf-function-autoscaler", "function-autoscaler"],
] as const;

const at = (role: string) => `${CASSANDRA_SERVICE_ROLES[role]}/data/${CASSANDRA_CREDS_KEY}`;

/** What the Job's script reports when every role took the password. */
const allRotated = (env: Record<string, string>) => ({
    exitCode: 0,
    message: env.ROLES.split(" ")
        .map((r) => `rotated ${r}\n`)
        .join(""),
});

function world(o: { without?: string[] } = {}) {
    const kube = new FakeCassandraJobs();
    const { cluster } = kube;
    let clock = Date.parse("2026-12-03T09:00:00Z");
    const now = () => new Date((clock += 1000));
    cluster.bao.now = now;
    cluster.now = now;
    // The OpenBao migrations at install: each service's login, written once (sis-api's with more fields).
    for (const [role, mount] of Object.entries(CASSANDRA_SERVICE_ROLES)) {
        cluster.bao.kvMounts.add(mount);
        if (o.without?.includes(role)) continue;
        const extra = role === "sis_api_app_v0" ? { tls_cert: "replace", public_key: "replace", private_key: "replace" } : {};
        cluster.bao.kv.set(at(role), [{ data: { username: role, password: "installed-0", ...extra }, created_time: now().toISOString() }]);
    }
    clock += 3600_000;
    for (const [ns, name, release] of READERS) cluster.addDeployment(ns, name, release, "2026-12-03T09:30:00Z");
    const said: string[] = [];
    const provider = new CassandraPasswordProvider({ kube, pollMs: 1, say: (l) => said.push(l) });
    const stored = (role: string) => cluster.bao.kv.get(at(role))?.at(-1)?.data as Record<string, string> | undefined;
    const restarted = () => [...cluster.deployments.entries()].filter(([, d]) => d.restarts > 0).map(([k]) => k);
    return { kube, cluster, provider, said, stored, restarted };
}

function inputs(password: string, o: Partial<CassandraPasswordInputs> = {}): CassandraPasswordInputs {
    return {
        ...OPENBAO_REACH,
        password,
        superuser: { ...CASSANDRA_SUPERUSER },
        readers: READERS.map(([namespace, , release]) => ({ namespace, release })),
        timeoutSeconds: 5,
        pollSeconds: 1,
        ...o,
    };
}

describe("the rotation Job's report", () => {
    test("one line per role, and the line that failed", () => {
        assert.deepEqual(parseRotationResult("kept a_app_v0\nrotated b_app_v0\nabsent c_app_v0\n"), {
            rotated: ["b_app_v0"],
            kept: ["a_app_v0"],
            absent: ["c_app_v0"],
        });
        assert.deepEqual(parseRotationResult("rotated a_app_v0\nfailed b_app_v0: <stdin>:1:InvalidRequest: boom\n"), {
            rotated: ["a_app_v0"],
            kept: [],
            absent: [],
            failed: "b_app_v0: <stdin>:1:InvalidRequest: boom",
        });
    });

    test("the script takes every login from its environment: no password is in the Job's spec", () => {
        assert.doesNotMatch(ROTATION_SCRIPT, /installed|cassandra'/);
        assert.match(ROTATION_SCRIPT, /"\$SERVICE_ROLE_PASSWORD"/);
    });
});

describe("CassandraPasswordProvider: cassandraPassword kept true after the first install", () => {
    test("declared with the password the migrations set: no Job, nothing written or restarted", async () => {
        const { kube, provider, restarted } = world();
        const { outs } = await provider.create(inputs("installed-0"));
        assert.deepEqual([outs!.rotated, outs!.written, outs!.restarted], [[], [], []]);
        assert.deepEqual(kube.created, []);
        assert.deepEqual(restarted(), []);
    });

    test("a new password: the Job first, with the StatefulSet's image and the logins in its own Secret; then OpenBao; then the readers in order", async () => {
        const { kube, cluster, provider, said, stored, restarted } = world({ without: ["event_ledger_app_v0"] });
        kube.run = allRotated;
        const sent: unknown[] = [];
        const handle = cluster.bao.handle.bind(cluster.bao);
        cluster.bao.handle = (pod, method, path, token, body) => {
            if (method === "POST" && path.includes(CASSANDRA_CREDS_KEY)) sent.push(body);
            return handle(pod, method, path, token, body);
        };
        const first = (await provider.create(inputs("installed-0"))).outs!;
        assert.equal((await provider.diff("id", first, inputs("rotated-1"))).changes, true);
        const { outs } = (await provider.update("id", first, inputs("rotated-1"))) as { outs: CassandraPasswordOutputs };

        assert.equal(kube.created.length, 1);
        const job = kube.created[0];
        const pod = job.spec.template.spec;
        assert.equal(pod.containers[0].image, "nvcr.io/nvidia/nvcf/cassandra:5.0.8-nv-2.0.1");
        assert.deepEqual(pod.imagePullSecrets, [{ name: "nvcr-pull" }]);
        assert.deepEqual(pod.nodeSelector, { "nvcf.nvidia.com/workload": "cassandra" });
        assert.equal(pod.restartPolicy, "Never");
        assert.deepEqual(job.env, {
            CASSANDRA_USER: "cassandra",
            CASSANDRA_PASSWORD: "cassandra",
            SERVICE_ROLE_PASSWORD: "rotated-1",
            CASSANDRA_HOSTS: "cassandra.cassandra-system.svc.cluster.local",
            CASSANDRA_PORT: "9042",
            ROLES: ROLES.join(" "),
            RESULT_FILE: "/dev/termination-log",
        });
        assert.ok(!JSON.stringify(job.spec).includes("rotated-1"), "the password only in the Secret");
        // The Job and its Secret are gone after it.
        assert.deepEqual([kube.jobs.size, kube.secrets.size], [0, 0]);

        assert.deepEqual([...outs.rotated].sort(), ROLES);
        // A login OpenBao does not have (event-ledger's release is not installed) stays absent.
        assert.deepEqual(
            outs.written,
            ROLES.filter((r) => r !== "event_ledger_app_v0").map((r) => `${CASSANDRA_SERVICE_ROLES[r]}/${CASSANDRA_CREDS_KEY}`),
        );
        assert.equal(stored("event_ledger_app_v0"), undefined);
        assert.deepEqual(stored("ess_api_app_v0"), { username: "ess_api_app_v0", password: "rotated-1" });
        assert.deepEqual(stored("sis_api_app_v0"), {
            username: "sis_api_app_v0",
            password: "rotated-1",
            tls_cert: "replace",
            public_key: "replace",
            private_key: "replace",
        });
        // Each write a check-and-set on the version read.
        assert.deepEqual(
            sent.map((b) => (b as { options?: { cas?: number } }).options?.cas),
            [1, 1, 1, 1, 1, 1],
        );
        // Cassandra before OpenBao.
        const jobAt = kube.requests.findIndex((r) => r.startsWith("POST /apis/batch/v1/"));
        const firstWrite = kube.requests.findIndex((r) => r.startsWith("POST ") && r.includes(CASSANDRA_CREDS_KEY));
        assert.ok(jobAt >= 0 && jobAt < firstWrite, "the Job before the first OpenBao write");

        assert.deepEqual(
            outs.restarted,
            READERS.map(([ns, name]) => `${ns}/${name}`),
        );
        assert.deepEqual(restarted().sort(), READERS.map(([ns, name]) => `${ns}/${name}`).sort());
        assert.ok(!said.join("\n").includes("rotated-1"), said.join("\n"));

        const again = (await provider.update("id", outs, inputs("rotated-1"))).outs!;
        assert.deepEqual([again.rotated, again.written, again.restarted], [[], [], []]);
        assert.equal(kube.created.length, 1, "no second Job");
    });

    test("a Job left by a stopped run is deleted (with its Secret) before the new one starts", async () => {
        const { kube, provider } = world();
        kube.run = () => "running";
        await kube.request("POST", "/apis/batch/v1/namespaces/cassandra-system/jobs", {
            metadata: { name: ROTATION_JOB },
            spec: { template: { spec: { containers: [{ name: "rotate", envFrom: [{ secretRef: { name: ROTATION_JOB } }] }] } } },
        });
        await kube.request("POST", "/api/v1/namespaces/cassandra-system/secrets", { metadata: { name: ROTATION_JOB }, stringData: {} });
        kube.run = allRotated;
        await provider.update("id", (await provider.create(inputs("installed-0"))).outs!, inputs("rotated-1"));
        const order = kube.requests.filter((r) => /^(POST|DELETE) .*(jobs|secrets)/.test(r)).slice(2);
        assert.deepEqual(order.slice(0, 4), [
            `DELETE /apis/batch/v1/namespaces/cassandra-system/jobs/${ROTATION_JOB}`,
            `DELETE /api/v1/namespaces/cassandra-system/secrets/${ROTATION_JOB}`,
            "POST /apis/batch/v1/namespaces/cassandra-system/jobs",
            "POST /api/v1/namespaces/cassandra-system/secrets",
        ]);
        assert.equal(kube.created.length, 2);
        assert.equal(kube.secrets.size, 0);
    });

    test("the Secret is owned by the Job, so the garbage collector removes it with the Job", async () => {
        const { kube, provider } = world();
        let secret: any;
        kube.run = (env) => {
            secret = kube.secrets.get(ROTATION_JOB);
            return allRotated(env);
        };
        await provider.update("id", (await provider.create(inputs("installed-0"))).outs!, inputs("rotated-1"));
        assert.deepEqual(secret.metadata.ownerReferences, [
            { apiVersion: "batch/v1", kind: "Job", name: ROTATION_JOB, uid: kube.created[0].uid },
        ]);
    });

    test("a Job that fails stops up with its line and the roles it changed; OpenBao keeps the old password; the next run finishes", async () => {
        const { kube, provider, stored, restarted } = world();
        kube.run = () => ({
            exitCode: 1,
            message: "rotated api_keys_api_app_v0\nfailed ess_api_app_v0: <stdin>:2:InvalidRequest: Error from server: code=2200\n",
        });
        const first = (await provider.create(inputs("installed-0"))).outs!;
        await assert.rejects(
            provider.update("id", first, inputs("rotated-1")),
            new Error(
                "the Cassandra password rotation: the Job in cassandra-system failed: ess_api_app_v0: <stdin>:2:InvalidRequest: Error from server: " +
                    "code=2200. Roles already changed: api_keys_api_app_v0. OpenBao still holds the old password and nothing was restarted; " +
                    "run pulumi up again to finish",
            ),
        );
        assert.equal(stored("api_keys_api_app_v0")!.password, "installed-0");
        assert.deepEqual(restarted(), []);
        assert.deepEqual([kube.jobs.size, kube.secrets.size], [0, 0]);

        kube.run = allRotated;
        const { outs } = await provider.update("id", first, inputs("rotated-1"));
        assert.equal(stored("api_keys_api_app_v0")!.password, "rotated-1");
        assert.equal(outs!.restarted.length, READERS.length);
    });

    test("a pod that never runs (its image cannot be pulled): the Job's deadline, named with the kubelet's reason", async () => {
        const { kube, provider } = world();
        kube.run = () => ({ waiting: { reason: "ImagePullBackOff", message: `Back-off pulling image "nvcr.io/nvidia/nvcf/cassandra"` } });
        await assert.rejects(
            provider.update("id", (await provider.create(inputs("installed-0"))).outs!, inputs("rotated-1")),
            /the Job in cassandra-system failed: its pod nvcf-cassandra-password-rotation-x7k2p is waiting: ImagePullBackOff Back-off pulling image/,
        );
    });

    test("a pod no node takes (the StatefulSet's node selector): the Job's deadline, named with the scheduler's reason", async () => {
        const { kube, provider } = world();
        kube.run = () => ({
            unscheduled: {
                reason: "Unschedulable",
                message: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.",
            },
        });
        await assert.rejects(
            provider.update("id", (await provider.create(inputs("installed-0"))).outs!, inputs("rotated-1")),
            /failed: its pod nvcf-cassandra-password-rotation-x7k2p is not scheduled: Unschedulable 0\/3 nodes are available: 3 node\(s\) didn't match Pod's node affinity\/selector\./,
        );
    });

    test("a pod past the Job's deadline, deleted by the job controller: its condition names why; the deadline is at least 300 s", async () => {
        const { kube, provider } = world();
        kube.run = () => ({ pastDeadline: true });
        await assert.rejects(
            provider.update("id", (await provider.create(inputs("installed-0"))).outs!, inputs("rotated-1")),
            /failed: the job controller says DeadlineExceeded: Job was active longer than specified deadline\. OpenBao still holds the old password/,
        );
        assert.equal(kube.created[0].spec.activeDeadlineSeconds, 300, "timeoutSeconds 5 is too short for seven roles");
    });

    test("no Cassandra StatefulSet: stops naming it, with no Job made", async () => {
        const { kube, provider } = world();
        kube.statefulSet = undefined;
        await assert.rejects(
            provider.update("id", (await provider.create(inputs("installed-0"))).outs!, inputs("rotated-1")),
            /statefulset cassandra-system\/cassandra does not exist; the cassandra release makes it/,
        );
        assert.deepEqual(kube.created, []);
    });

    test("an OpenBao write refused half-way: says what is written, and the next run writes the rest after a Job that changes nothing", async () => {
        const { kube, cluster, provider, stored } = world();
        kube.run = allRotated;
        const first = (await provider.create(inputs("installed-0"))).outs!;
        // Someone wrote nvcf-api's login between the read and the write: OpenBao refuses the check-and-set, as kv-v2 does.
        cluster.bao.inject(/POST services\/nvcf-api\/kv\/data\/cassandra\/creds/, {
            status: 400,
            body: { errors: ["check-and-set parameter did not match the current version"] },
        });
        await assert.rejects(
            provider.update("id", first, inputs("rotated-1")),
            /writing services\/nvcf-api\/kv\/cassandra\/creds failed: .*check-and-set.*Cassandra has the new password\. Written before it: services\/api-keys-api\/kv\/cassandra\/creds, services\/ess-api\/kv\/cassandra\/creds, services\/event-ledger\/kv\/cassandra\/creds\. Nothing was restarted; run pulumi up again to finish/,
        );
        kube.run = (env) => ({
            exitCode: 0,
            message: env.ROLES.split(" ")
                .map((r) => `kept ${r}\n`)
                .join(""),
        });
        const { outs } = await provider.update("id", first, inputs("rotated-1"));
        assert.deepEqual(outs!.rotated, []);
        assert.equal(kube.created.length, 2);
        for (const role of ROLES) assert.equal(stored(role)!.password, "rotated-1", role);
    });

    test("refresh: a login changed by hand shows as drifted, and the next up rotates again", async () => {
        const { cluster, provider } = world();
        const outs = (await provider.create(inputs("installed-0"))).outs!;
        cluster.bao.kv
            .get(at("sis_api_app_v0"))!
            .push({ data: { username: "sis_api_app_v0", password: "by-hand" }, created_time: new Date().toISOString() });
        const { props } = await provider.read("id", outs);
        assert.deepEqual(props!.drifted, ["services/sis-api/kv/cassandra/creds"]);
        assert.equal((await provider.diff("id", props!, inputs("installed-0"))).changes, true);
        assert.equal((await provider.diff("id", outs, inputs("installed-0"))).changes, false);
    });

    test("check: an empty password is refused", async () => {
        const { provider } = world();
        const { failures } = await provider.check(inputs("installed-0"), inputs(""));
        assert.deepEqual(failures, [{ property: "password", reason: "the Cassandra password rotation: cassandraPassword is empty" }]);
    });
});
