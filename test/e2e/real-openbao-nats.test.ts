/**
 * The program's checks of OpenBao and NATS against the real servers: a three-member Raft
 * cluster of `bao server` 2.5.5 processes and a `nats-server` 2.11.17 with JetStream, each
 * behind its pod on a real kube-apiserver. The API server's pod proxy reaches the pods' address
 * (this machine's, as the API server proxies to no loopback address), where the suite's pod
 * network forwards each pod's port to its process: what a kubelet and a CNI would do.
 *
 * Against them: the health gate's OpenBao check (initialised, unsealed; a restarted member
 * sealed until unsealed), the members' leader, Raft configuration and step-down, the admin
 * issuer grant revocation (migration 10's objects created, revoked, re-created by an upgrade's
 * migrations, revoked again), and the drain gate on real `/jsz` answers over more than one page
 * of JetStream accounts.
 *
 * Tools: scripts/e2e/build-tools.sh (bao needs OPENBAO_SOURCE). Run: npm run test:e2e.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import {
    OPENBAO,
    OPENBAO_API,
    ADMIN_ISSUER_GRANT_PATHS,
    MEK_STORED_DATA,
    NATS_AUTH_CALLOUT_CREDS,
    NATS_CREDS,
    SIDECAR_PULL_SECRET,
} from "../../lib/openbao/contract";
import { userNkey } from "../../lib/nats/nkeys";
import { NkeyRotationProvider, type NkeyRotationInputs } from "../../components/providers/openbao-nkey-rotation";
import { NKEY_ROTATION_MARK } from "../../lib/nats/nkey-secret";
import { newJwk } from "../../lib/openbao/mek";
import { MEK_ROTATION_MARK, MekRotationProvider, type MekRotationInputs } from "../../components/providers/openbao-mek-rotation";
import { KvCredentialProvider, type KvCredentialInputs } from "../../components/providers/openbao-kv-credential";
import { OPENBAO_REACH } from "../support/openbao-reach";
import { JSZ_STORAGE, NATS, NKEY_SECRET, WORKER_CONNECTION_PREFIX } from "../../lib/nats/contract";
import * as checks from "../../lib/health/checks";
import { httpKube, type Kube as ProgramKube } from "../../lib/kubernetes/client";
import { openBaoMembers } from "../../lib/openbao/access";
import { apiServer } from "../../lib/cluster-access/access";
import { GrantRevocationProvider, type GrantRevocationInputs } from "../../components/providers/openbao-grant-revocation";
import { natsDrained } from "../../scripts/upgrade/nats-drain";
import { findTools } from "../../scripts/e2e/tools";
import { statusCli } from "../../scripts/status/cli";
import { Kube, LocalCluster, ownClusterSkip, podAddress, until } from "./cluster";
import { BaoCluster } from "./real-openbao";
import { NatsClient, NatsServer } from "./real-nats";
import { OpenBaoPods, openbaoStatefulSet } from "./openbao-pods";
import { podNetwork } from "./pod-network";
import { JWT_PLUGIN, migration10, mountKvV2, NVCF_API_JWT_MOUNT, registerJwtPlugin } from "./openbao-migrations";
import { rollOut } from "../../lib/openbao/rollout";
import { captureJwtBaseline, verifyJwtMounts, type JwtBaseline } from "../../lib/openbao/jwt-mounts";

const MIN = 60_000;
const ROOT = path.resolve(__dirname, "..", "..");
const VAULT = "vault-system";

const podIp = podAddress;

const found = findTools();
const tools = found.tools;
const skip = ownClusterSkip(found, "the real OpenBao and NATS run behind this suite's own API server");

const b64 = (s: string) => Buffer.from(s).toString("base64");
const unb64 = (s: string) => Buffer.from(s, "base64").toString("utf8");

function fetchJson(url: string): Promise<any> {
    return new Promise((resolve, reject) => {
        http.get(url, (res) => {
            let text = "";
            res.on("data", (d) => (text += d));
            res.on("end", () => resolve(JSON.parse(text)));
        }).on("error", reject);
    });
}

/** A pod the kubelet would have started: Running and Ready at the pods' address. */
async function runningPod(kube: Kube, namespace: string, name: string, container: object): Promise<void> {
    const created = await kube.request("POST", `/api/v1/namespaces/${namespace}/pods`, {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name, namespace },
        spec: { containers: [container] },
    });
    assert.equal(created.status, 201, created.text);
    const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    const conditions = ["Initialized", "ContainersReady", "Ready"].map((type) => ({ type, status: "True", lastTransitionTime: now }));
    const res = await kube.request(
        "PATCH",
        `/api/v1/namespaces/${namespace}/pods/${name}/status`,
        { status: { phase: "Running", podIP: podIp, podIPs: [{ ip: podIp }], startTime: now, conditions } },
        "application/merge-patch+json",
    );
    assert.equal(res.status, 200, res.text);
}

describe("end-to-end: the checks against a real OpenBao and a real NATS", { skip }, () => {
    let work = "";
    let cluster: LocalCluster;
    let kube: Kube;
    let program: ProgramKube;
    let pods: OpenBaoPods;
    let bao: BaoCluster;
    let nats: NatsServer;
    let app: NatsClient | undefined;
    let natsNetwork: http.Server | undefined;

    before(async () => {
        work = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-e2e-real-"));
        nats = new NatsServer(tools!.natsServer, fs.mkdtempSync(path.join(work, "nats-")), ["A1", "APP", "A3"], 14222, 18222);
        cluster = new LocalCluster(tools!);
        await Promise.all([cluster.boot(), nats.start()]);
        kube = new Kube(cluster.kubeconfig);
        pods = new OpenBaoPods(tools!, work, kube, VAULT, podIp!);
        bao = pods.bao;
        program = httpKube(await apiServer({ kubeconfig: cluster.kubeconfig }), { timeoutMs: 10_000, retries: 0 });
        for (const ns of [VAULT, NATS.namespace]) {
            const res = await kube.request("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
            assert.equal(res.status, 201, res.text);
        }
        // The chart's server StatefulSet as far as the rollout sees it; the real StatefulSet controller makes its pods,
        // and the kubelet stand-in runs them: a replaced pod is its member's process restarted, then unsealed by the sidecar.
        const sts = await kube.request("POST", `/apis/apps/v1/namespaces/${VAULT}/statefulsets`, openbaoStatefulSet(VAULT, "1"));
        assert.equal(sts.status, 201, sts.text);
        cluster.startControllerManager(tools!.kubeControllerManager, ["statefulset-controller"]);
        await pods.start();
        await until("three Ready member pods", async () => pods.kubelet.uids().every(Boolean), 2 * MIN);
        await runningPod(kube, NATS.namespace, "nats-0", {
            name: NATS.container,
            image: "nats",
            ports: [{ name: NATS.monitorPortName, containerPort: NATS.monitorPort }],
        });
        natsNetwork = await podNetwork(podIp!, NATS.monitorPort, (pod) =>
            pod === "nats-0" ? `http://127.0.0.1:${nats.monitorPort}` : undefined,
        );
        // The chart's init Job keeps the root token in this Secret.
        const secret = await kube.request("POST", `/api/v1/namespaces/${VAULT}/secrets`, {
            apiVersion: "v1",
            kind: "Secret",
            metadata: { name: OPENBAO.rootTokenSecret.name },
            data: { [OPENBAO.rootTokenSecret.key]: Buffer.from(bao.rootToken).toString("base64") },
        });
        assert.equal(secret.status, 201, secret.text);
    });

    after(async () => {
        app?.close();
        await new Promise((r) => (natsNetwork ? natsNetwork.close(r) : r(undefined)));
        await Promise.allSettled([pods?.stop(), nats?.stop(), cluster?.stop()]);
        if (process.exitCode) console.error(`logs kept in ${work} and ${cluster?.dir}`);
        else {
            fs.rmSync(work, { recursive: true, force: true });
            cluster?.removeDir();
        }
    });

    const probe = { namespace: VAULT, pod: OPENBAO.pod, port: OPENBAO.port, scheme: "http" as const };
    /** The members as the program reaches them: the API server's pod proxy, the root token from the chart's Secret. */
    const programMembers = () =>
        openBaoMembers(
            program,
            { namespace: VAULT, port: OPENBAO.port, scheme: "http" },
            { secret: { namespace: VAULT, ...OPENBAO.rootTokenSecret } },
        );

    it(
        "health gate: OpenBao initialised and unsealed, read through the pod proxy; a restarted member is sealed until unsealed",
        { timeout: 3 * MIN },
        async () => {
            const unsealed = await checks.openbao(program, probe);
            assert.equal(unsealed.ok, true, unsealed.detail);
            await bao.restart(OPENBAO.pod);
            const sealed = await checks.openbao(program, probe);
            assert.equal(sealed.ok, false);
            assert.match(sealed.detail, /sealed/);
            await bao.unseal(OPENBAO.pod);
            assert.equal((await checks.openbao(program, probe)).ok, true);
        },
    );

    it(
        "members: health, leader and the Raft configuration as OpenBao 2.5.5 answers them; step-down moves the leadership",
        { timeout: 3 * MIN },
        async () => {
            const members = programMembers();
            const leader = (await bao.leader())!;
            const standby = bao.names.find((n) => n !== leader)!;
            const health = await members.health(standby);
            assert.equal(health.initialized, true);
            assert.equal(health.sealed, false);
            assert.equal(health.standby, true);
            assert.equal(health.version, "2.5.5");
            assert.equal((await members.leader(leader)).isSelf, true);
            assert.equal((await members.leader(standby)).leaderAddress, bao.url(leader));
            // The rollout reads the Raft configuration from the leader, whose copy flags the leader.
            const raft = await members.raftServers(leader);
            assert.deepEqual(raft.map((s) => [s.nodeId, s.voter, s.leader]).sort(), bao.names.map((n) => [n, true, n === leader]).sort());
            // With the chart's disable_standby_reads, a standby forwards the read to the active member: its answer is the
            // leader's, leader flag included (OpenBao 2.5's standby reads, which answer from the member's own copy, are off).
            assert.deepEqual(
                (await members.raftServers(standby)).map((s) => [s.nodeId, s.voter, s.leader]).sort(),
                bao.names.map((n) => [n, true, n === leader]).sort(),
            );
            // Sent to a standby, as the rollout may: OpenBao forwards it to the active member.
            await members.stepDown(standby);
            const deadline = Date.now() + MIN;
            let next = await bao.leader();
            while ((!next || next === leader) && Date.now() < deadline) {
                await new Promise((r) => setTimeout(r, 250));
                next = await bao.leader();
            }
            assert.ok(next && next !== leader, `a new leader after ${leader} stepped down (now ${next})`);
            // The answers are real: the fake's seal-status shape is OpenBao's.
            const status = await bao.call(next, "GET", OPENBAO_API.sealStatus);
            assert.deepEqual(Object.keys(status.body).sort(), [
                "build_date",
                "cluster_id",
                "cluster_name",
                "initialized",
                "migration",
                "n",
                "nonce",
                "progress",
                "recovery_seal",
                "sealed",
                "storage_type",
                "t",
                "type",
                "version",
            ]);
        },
    );

    it(
        "grant revocation: migration 10's grant revoked, re-created by an upgrade's migrations, revoked again",
        { timeout: 3 * MIN },
        async () => {
            // Migrations 01 and 09 ran at boot (NVIDIA's JWT plugin mounted at services/nvcf-api/jwt, with its roles);
            // 10_setup_admin-issuer.sh runs on every run of the migrations Job.
            await migration10(bao.root);

            const provider = new GrantRevocationProvider({ retryDelayMs: 100 });
            await provider.configure({ config: { get: () => undefined, require: () => "" } } as never);
            const inputs = (revision: number): GrantRevocationInputs => ({
                via: "kubernetes",
                namespace: VAULT,
                pod: OPENBAO.pod,
                port: OPENBAO.port,
                scheme: "http",
                kubeconfig: cluster.kubeconfig,
                tokenSource: "kubernetes-secret",
                tokenSecret: { namespace: VAULT, ...OPENBAO.rootTokenSecret },
                insecureSkipVerify: false,
                timeoutSeconds: 10,
                retries: 1,
                openbaoRevision: revision,
            });
            // The revocation reaches the members through the API server's pod proxy; openbao-server-0 may be a standby (it forwards).
            const { id, outs } = await provider.create(inputs(1));
            assert.deepEqual(outs!.remaining, []);
            const gone = async (p: string) => (await bao.root("GET", p)).status === 404;
            for (const p of Object.values(ADMIN_ISSUER_GRANT_PATHS)) assert.ok(await gone(p), `${p} revoked`);
            // Migration 09's neighbours on the same mounts stay.
            for (const p of [
                "auth/jwt/role/nvcf-api",
                `${NVCF_API_JWT_MOUNT}/roles/nvcf-api-admin`,
                "sys/policies/acl/services-nvcf-api-jwt-sign-nvcf-api-rw",
            ])
                assert.equal(await gone(p), false, `${p} survives`);

            // An upgrade of openbao-server: its post-upgrade migrations Job runs migration 10 again.
            await migration10(bao.root);
            // The read goes to openbao-server-0, which may be a standby: with the chart's disable_standby_reads it forwards
            // the lists to the active member, so the first read sees the grant the leader just took.
            const read = await provider.read(id, outs!);
            assert.deepEqual(read.props!.remaining.sort(), [
                "auth/jwt/role/admin-issuer-proxy",
                "services/nvcf-api/jwt/roles/admin-issuer-proxy",
                "sys/policies/acl/services-admin-issuer-proxy-jwt-sign-admin-issuer-proxy-rw",
            ]);
            assert.equal((await provider.diff(id, outs!, inputs(2))).changes, true, "the release's new revision revokes again");
            const { outs: again } = await provider.update(id, outs!, inputs(2));
            assert.deepEqual(again!.remaining, []);
            for (const p of Object.values(ADMIN_ISSUER_GRANT_PATHS)) assert.ok(await gone(p), `${p} revoked again`);
        },
    );

    let baseline: JwtBaseline | undefined;
    it(
        "sidecar credential: a changed key written to both kv-v2 places at the leader and read back; a rerun writes nothing",
        { timeout: 3 * MIN },
        async () => {
            const auth = (key: string) => Buffer.from(`$oauthtoken:${key}`).toString("base64");
            // Migrations 09 and 20: the kv-v2 mounts, and write_secrets_kv's `bao kv put` of the first key.
            for (const t of Object.values(SIDECAR_PULL_SECRET)) {
                await mountKvV2(bao.root, t.mount, t.key);
                assert.equal((await bao.root("POST", `${t.mount}/data/${t.key}`, { data: { secret: auth("first") } })).status, 200);
            }
            const said: string[] = [];
            const provider = new KvCredentialProvider({ kube: program, pollMs: 100, say: (l) => said.push(l) });
            const inputs = (key: string): KvCredentialInputs => ({
                ...OPENBAO_REACH,
                credential: "the sidecar image-pull credential",
                targets: Object.values(SIDECAR_PULL_SECRET),
                data: { secret: auth(key) },
                format: "docker-auth",
                // No nvcf-api here (test/e2e/openbao-rollout.test.ts restarts it): OpenBao's side alone.
                readers: [],
                timeoutSeconds: 10,
                pollSeconds: 1,
            });
            const first = await provider.create(inputs("first"));
            assert.deepEqual(first.outs!.written, [], "the migrations' value is the stack file's");
            const { outs } = await provider.update("id", first.outs!, inputs("second"));
            assert.deepEqual(
                outs!.written,
                Object.values(SIDECAR_PULL_SECRET).map((t) => `${t.mount}/${t.key}`),
            );
            for (const t of Object.values(SIDECAR_PULL_SECRET)) {
                const read = await bao.root("GET", `${t.mount}/data/${t.key}`);
                const body = read.body as { data: { data: unknown; metadata: { version: number } } };
                assert.deepEqual(body.data.data, { secret: auth("second") });
                assert.equal(body.data.metadata.version, 2);
            }
            const again = await provider.update("id", outs!, inputs("second"));
            assert.deepEqual(again.outs!.written, []);
            const read = await provider.read("id", again.outs!);
            assert.deepEqual(read.props!.drifted, []);
            assert.ok(!said.join("\n").includes(auth("second")), "the value is never said");
        },
    );

    it(
        "MEK rotation: a new key first in keys and private_jwks, the old kept, checked-and-set; the mark stops a rerun from adding another",
        { timeout: 3 * MIN },
        async () => {
            // Migrations 02 and 03: the kv-v2 mount of services/all and the key set, as encryption_setup.sh makes it.
            const kid = "fa85bab2-fccd-11f0-b875-82c3b2df389e";
            const jwks = (k: string) => Buffer.from(JSON.stringify({ keys: [newJwk(k)] })).toString("base64");
            const installed = { keys: jwks(kid), current_kid: kid, jwe_mapping: `{"payload_jwe_kid":"${kid}"}`, private_jwks: jwks(kid) };
            const at = `${MEK_STORED_DATA.mount}/data/${MEK_STORED_DATA.key}`;
            await mountKvV2(bao.root, MEK_STORED_DATA.mount, MEK_STORED_DATA.key);
            assert.equal((await bao.root("POST", at, { data: installed })).status, 200);

            const provider = new MekRotationProvider({ kube: program, pollMs: 100, say: () => undefined });
            const inputs = (rotation: number): MekRotationInputs => ({
                ...OPENBAO_REACH,
                rotation,
                // OpenBao's side alone: the readers' restarts run in test/mek.test.ts against the fake Deployments.
                readers: [],
                timeoutSeconds: 10,
                pollSeconds: 1,
            });
            const first = await provider.create(inputs(0));
            assert.deepEqual(first.outs!.kids, [kid]);
            const { outs } = await provider.update("id", first.outs!, inputs(1));
            const stored = (await bao.root("GET", at)).body as {
                data: { data: Record<string, string>; metadata: { version: number; custom_metadata: Record<string, string> } };
            };
            const keys = JSON.parse(Buffer.from(stored.data.data.keys, "base64").toString()).keys as { kid: string; k: string }[];
            const priv = JSON.parse(Buffer.from(stored.data.data.private_jwks, "base64").toString()).keys as { kid: string; k: string }[];
            assert.deepEqual(
                keys.map((k) => k.kid),
                [outs!.currentKid, kid],
            );
            assert.deepEqual(
                priv.map((k) => k.kid),
                [outs!.currentKid, kid],
            );
            assert.notEqual(keys[0].k, priv[0].k);
            assert.equal(stored.data.data.current_kid, outs!.currentKid);
            assert.equal(stored.data.metadata.version, 2);
            assert.deepEqual(stored.data.metadata.custom_metadata, { [MEK_ROTATION_MARK]: "1" });

            await provider.update("id", outs!, inputs(1));
            assert.equal(((await bao.root("GET", at)).body as typeof stored).data.metadata.version, 2, "the rerun wrote nothing");
            // A write on a version that moved on is refused by OpenBao's check-and-set.
            const stale = await bao.root("POST", at, { options: { cas: 1 }, data: installed });
            assert.equal(stale.status, 400);
            assert.match(JSON.stringify(stale.body), /check-and-set parameter did not match the current version/);
        },
    );

    it("JWT mounts: NVIDIA's plugin, registered and mounted as the chart does, is the baseline", { timeout: MIN }, async () => {
        baseline = await captureJwtBaseline(programMembers(), (await bao.leader())!);
        // Unversioned, as deploy.sh registers it: the binary's SHA-256 is what identifies it.
        assert.deepEqual(
            baseline.mounts.map((m) => [m.path, m.pluginVersion, m.runningVersion, m.runningSha256]),
            [[`${NVCF_API_JWT_MOUNT}/`, "", "", bao.jwtPluginSha256]],
        );
    });

    it(
        "rollout: a template change replaces the real members one at a time, standbys first, the leader after its step-down",
        { timeout: 6 * MIN },
        async () => {
            const members = programMembers();
            const leaderBefore = (await bao.leader())!;
            const clusterId = (await members.health(leaderBefore)).clusterId;
            const patched = await kube.request(
                "PATCH",
                `/apis/apps/v1/namespaces/${VAULT}/statefulsets/${OPENBAO.statefulSet}`,
                { spec: { template: { metadata: { annotations: { "example.com/revision": "2" } } } } },
                "application/merge-patch+json",
            );
            assert.equal(patched.status, 200, patched.text);
            const lines: string[] = [];
            const replacedBefore = pods.kubelet.replacements.length;
            const report = await rollOut(
                program,
                members,
                { namespace: VAULT, statefulSet: OPENBAO.statefulSet },
                {
                    memberTimeoutMs: 2 * MIN,
                    pollMs: 500,
                    expectedClusterId: clusterId,
                    log: (l) => lines.push(l),
                },
            );
            assert.equal(report.replaced.length, 3, lines.join("\n"));
            assert.equal(report.replaced[2], leaderBefore, "the leader last");
            assert.deepEqual(report.steppedDown, [leaderBefore]);
            assert.equal(report.clusterId, clusterId);
            // Each replaced pod was a restarted process, on the new revision.
            const replaced = pods.kubelet.replacements.slice(replacedBefore);
            assert.deepEqual(
                replaced.map((r) => r.name),
                report.replaced,
            );
            assert.equal(new Set(replaced.map((r) => r.revision)).size, 1);
            // Afterwards: every member unsealed, one leader, all voters of the same cluster.
            for (const n of bao.names) assert.equal((await members.health(n)).sealed, false, n);
            const leader = (await bao.leader())!;
            assert.deepEqual(
                (await members.raftServers(leader)).map((s) => [s.nodeId, s.voter]).sort(),
                bao.names.map((n) => [n, true]).sort(),
            );
            assert.equal((await checks.openbao(program, probe)).ok, true);
            // The mounts came back on the binary they ran: the check after a rollout passes.
            assert.deepEqual(await verifyJwtMounts(members, leader, baseline!), { kept: [`${NVCF_API_JWT_MOUNT}/`], added: [] });
        },
    );

    it(
        "JWT mounts: a mount on a newly registered version passes the check; a binary replaced under an existing mount fails it, named",
        { timeout: 2 * MIN },
        async () => {
            const members = programMembers();
            // A bridge's catalog entry: the same binary registered under a version, and a mount made on it since.
            await registerJwtPlugin(bao.root, bao.jwtPluginSha256, "v1.4.1");
            // `bao secrets enable -plugin-version` sends it in the mount's config; at the top level OpenBao ignores it.
            const mounted = await bao.root("POST", "sys/mounts/services/new/jwt", {
                type: JWT_PLUGIN,
                config: { plugin_version: "v1.4.1" },
            });
            assert.equal(mounted.status, 204, mounted.text);
            // Read from the leader, as the program does (a standby would forward the read to it).
            const leader = (await bao.leader())!;
            const report = await verifyJwtMounts(members, leader, baseline!);
            assert.deepEqual(report.added, ["services/new/jwt/"]);
            assert.deepEqual(report.target, { version: "v1.4.1", sha256: bao.jwtPluginSha256 });

            // The unversioned entry now names another binary (a new image's), and the mount reloads onto it.
            assert.equal((await bao.root("DELETE", "sys/mounts/services/new/jwt")).status, 204);
            const sha = bao.replaceJwtPluginBinary();
            await registerJwtPlugin(bao.root, sha);
            const reload = await bao.root("PUT", "sys/plugins/reload/backend", { mounts: [NVCF_API_JWT_MOUNT] });
            assert.ok(reload.status === 200 || reload.status === 204, reload.text);
            await assert.rejects(
                verifyJwtMounts(members, leader, baseline!),
                new RegExp(
                    `mount ${NVCF_API_JWT_MOUNT}/ ran an unversioned plugin \\(SHA-256 ${bao.jwtPluginSha256.slice(0, 12)}\\) and now runs ` +
                        `an unversioned plugin \\(SHA-256 ${sha.slice(0, 12)}\\); existing mounts keep their plugin`,
                ),
            );
        },
    );

    it(
        "NATS NKey rotation: refused while a worker holds the key on the real NATS; then the Secret and OpenBao get a key the real server accepts",
        { timeout: 3 * MIN },
        async () => {
            const chart = userNkey();
            const secret = await kube.request("POST", `/api/v1/namespaces/${NATS.namespace}/secrets`, {
                apiVersion: "v1",
                kind: "Secret",
                metadata: { name: NKEY_SECRET.name },
                data: { [NKEY_SECRET.seed]: b64(chart.seed), [NKEY_SECRET.publicKey]: b64(chart.publicKey) },
            });
            assert.equal(secret.status, 201, secret.text);
            // Migrations 02 and 03: the kv-v2 mount (made already if the MEK case ran) and the Secret copied into both places.
            await mountKvV2(bao.root, NATS_CREDS.mount, NATS_CREDS.key, { mayExist: true });
            const creds = `${NATS_CREDS.mount}/data/${NATS_CREDS.key}`;
            const callout = `${NATS_AUTH_CALLOUT_CREDS.mount}/data/${NATS_AUTH_CALLOUT_CREDS.key}`;
            assert.equal((await bao.root("POST", creds, { data: { key: chart.seed, public_key: chart.publicKey } })).status, 200);
            const calloutOwn = { nkey_seed: "SUCALLOUTSEED", nkey_signature: "SACALLOUTSIGNATURE", shared_worker_account: "APP" };
            assert.equal(
                (await bao.root("POST", callout, { data: { ...calloutOwn, shared_worker_nkey_pub: chart.publicKey } })).status,
                200,
            );

            // The APP account takes the shared key (the callout's check of shared_worker_nkey_pub) and a token worker's user.
            nats.appUsers = [`{ nkey: "${chart.publicKey}" }`, `{ user: "worker-fv2", password: "token" }`];
            await nats.reload();
            const oldWorker = await nats.connectNkey(chart.seed, `${WORKER_CONNECTION_PREFIX}fv1_instance1`);
            const tokenWorker = await NatsClient.connect(
                nats.port,
                { user: "worker-fv2", pass: "token" },
                `${WORKER_CONNECTION_PREFIX}fv2_i2`,
            );
            const service = await nats.connectNkey(chart.seed, "nvcf-api");

            const provider = new NkeyRotationProvider({ kube: program, pollMs: 100, say: () => undefined });
            const inputs = (rotation: number): NkeyRotationInputs => ({
                ...OPENBAO_REACH,
                rotation,
                workerAuth: "token",
                force: false,
                // OpenBao's and NATS's side: the readers' restarts run in test/nkey-rotation.test.ts against the fake Deployments.
                readers: [],
                timeoutSeconds: 10,
                pollSeconds: 1,
            });
            await assert.rejects(
                provider.update("id", (await provider.create(inputs(0))).outs!, inputs(1)),
                /1 worker connection\(s\) may still hold the shared NKey.*: worker_fv1_instance1 on nats-0 from 127\.0\.0\.1 since .* \(logged in with the shared NKey\); nothing was written/,
            );
            const key = async () => {
                const s = (await kube.request("GET", `/api/v1/namespaces/${NATS.namespace}/secrets/${NKEY_SECRET.name}`)).body;
                return { seed: unb64(s.data[NKEY_SECRET.seed]), publicKey: unb64(s.data[NKEY_SECRET.publicKey]), s };
            };
            assert.equal((await key()).publicKey, chart.publicKey);

            oldWorker.close();
            service.close();
            await until("the worker gone from /connz", async () => {
                const connz = await fetchJson(`http://127.0.0.1:${nats.monitorPort}/connz`);
                return !connz.connections.some((c: { name?: string }) => c.name === `${WORKER_CONNECTION_PREFIX}fv1_instance1`);
            });
            const { outs } = await provider.update(
                "id",
                { ...inputs(0), publicKey: chart.publicKey, rotatedAt: "", restarted: [] },
                inputs(1),
            );
            const rotated = await key();
            assert.notEqual(rotated.publicKey, chart.publicKey);
            assert.equal(outs!.publicKey, rotated.publicKey);
            assert.equal(rotated.s.metadata.annotations[NKEY_ROTATION_MARK], "1");
            const stored = async (p: string) => ((await bao.root("GET", p)).body as { data: { data: Record<string, string> } }).data.data;
            assert.deepEqual(await stored(creds), { key: rotated.seed, public_key: rotated.publicKey });
            assert.deepEqual(await stored(callout), { ...calloutOwn, shared_worker_nkey_pub: rotated.publicKey });

            // The callout accepts what OpenBao now holds: the new seed logs in, the old one is refused.
            nats.appUsers = [`{ nkey: "${rotated.publicKey}" }`, `{ user: "worker-fv2", password: "token" }`];
            await nats.reload();
            (await nats.connectNkey(rotated.seed, "nvcf-api")).close();
            await assert.rejects(nats.connectNkey(chart.seed, "nvcf-api"), /Authorization Violation/);
            tokenWorker.close();

            const again = await provider.update("id", outs!, inputs(1));
            assert.equal((await key()).s.metadata.resourceVersion, rotated.s.metadata.resourceVersion, "the rerun wrote nothing");
            assert.deepEqual(again.outs!.restarted, []);
        },
    );

    it(
        "npm run status reads the real members: OpenBao initialised and unsealed, then one sealed, named with its fix",
        { timeout: 3 * MIN },
        async () => {
            // The dev stack as a user has it, with this cluster's kubeconfig given on the command line.
            const dir = fs.mkdtempSync(path.join(work, "stack-"));
            for (const f of ["Pulumi.yaml", "Pulumi.dev.yaml"]) fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
            const kubeconfig = path.join(dir, "kubeconfig.yaml");
            fs.writeFileSync(kubeconfig, cluster.kubeconfig, { mode: 0o600 });
            const status = async () => {
                let out = "";
                const code = await statusCli(
                    ["--stack", "dev", "--dir", dir, "--kubeconfig", kubeconfig],
                    { out: (t) => (out += t), err: (t) => (out += t) },
                    {
                        KUBECONFIG: "/nonexistent",
                    },
                );
                return { code, out };
            };
            // The earlier cases restart members; this one starts from every member up and unsealed.
            const members = programMembers();
            let answers: string[] = [];
            await until(
                "every member answers, unsealed",
                async () => {
                    answers = await Promise.all(
                        bao.names.map((n) =>
                            members.health(n).then(
                                (h) => `${n} ${h.sealed ? "sealed" : "unsealed"}`,
                                (err) => `${n} ${String(err)}`,
                            ),
                        ),
                    );
                    return answers.every((a) => a.endsWith(" unsealed"));
                },
                2 * MIN,
                () => [...answers, ...pods.errors, ...pods.crashes].join("; "),
            );
            const healthy = await status();
            assert.match(healthy.out, /^control plane +openbao +ok +OpenBao is initialised and unsealed$/m, healthy.out);
            await bao.restart(OPENBAO.pod);
            try {
                const sealed = await status();
                assert.equal(sealed.code, 1);
                assert.match(sealed.out, /\ncontrol plane +openbao +FAIL +OpenBao is sealed\n +fix: unseal it/, sealed.out);
            } finally {
                await bao.unseal(OPENBAO.pod);
            }
        },
    );

    it("drain gate: real /jsz answers through the pod proxy, every page of JetStream accounts", { timeout: 2 * MIN }, async () => {
        app = await nats.connect("APP");
        // As ICMS creates its streams: in memory, one replica.
        for (const name of ["CreateNvcaFunctionTaskStream", "TerminateNvcaStream"]) {
            await app.createStream(name, `icms.${name}.>`, JSZ_STORAGE.memory);
        }
        const a3 = await nats.connect("A3");
        await a3.createStream("archive", "archive.>", JSZ_STORAGE.file);
        await a3.publish("archive.x", 3);
        a3.close();
        await app.publish("icms.CreateNvcaFunctionTaskStream.gpu-a", 4);
        // Three JetStream accounts, two a page: the second page holds one, a third would hold none.
        const full = await natsDrained(program, 2);
        assert.equal(full.ok, false);
        assert.equal(full.detail, "not drained: APP/CreateNvcaFunctionTaskStream on nats-0: 4 messages");
        await app.request("$JS.API.STREAM.PURGE.CreateNvcaFunctionTaskStream", undefined);
        for (const page of [1, 2, 3, 1024]) {
            const drained = await natsDrained(program, page);
            assert.equal(drained.ok, true, `page size ${page}: ${drained.detail}`);
            assert.match(drained.detail, /2 single-replica memory streams are present and empty on 1 NATS server/);
        }
    });
});
