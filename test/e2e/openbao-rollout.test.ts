/**
 * OpenBao's member-by-member rollout through the real engine: the `pulumi` CLI on the committed
 * Pulumi.yaml, the real kubernetes provider (Helm inside it), a real kube-apiserver on etcd and
 * the real StatefulSet controller (kube-controller-manager with only that controller). The
 * openbao-server fixture chart renders an `OnDelete` StatefulSet of three members; behind them
 * run three real `bao server` 2.5.5 processes in one Raft cluster, with NVIDIA's JWT plugin
 * mounted (test/e2e/openbao-pods.ts): the test plays the kubelet (each new pod Running and Ready
 * at this machine's address, a replaced pod its member's process restarted, sealed) and the
 * auto-unseal sidecar, and the API server's real pod proxy reaches the members.
 *
 * Tools: scripts/e2e/build-tools.sh (kube-controller-manager included). Run: npm run test:e2e.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import type * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { findTools, Kube, LocalCluster, ownClusterSkip, podAddress, until } from "./cluster";
import { JWT_PLUGIN, mountKvV2, NVCF_API_JWT_MOUNT, registerJwtPlugin } from "./openbao-migrations";
import { OpenBaoPods, RUNBOOK_EVENTS } from "./openbao-pods";
import { PulumiCli, userCheckout } from "./pulumi-cli";
import { e2eStackConfig } from "./stack-config";
import { PodKubelet } from "./pod-kubelet";
import { MEK_STORED_DATA, NATS_AUTH_CALLOUT_CREDS, NATS_CREDS, SIDECAR_PULL_SECRET } from "../../lib/openbao/contract";
import { NATS, NKEY_SECRET } from "../../lib/nats/contract";
import { newJwk } from "../../lib/openbao/mek";
import { userNkey } from "../../lib/nats/nkeys";
import { NKEY_ROTATED_AT, NKEY_ROTATION_MARK } from "../../lib/nats/nkey-secret";
import { NatsServer } from "./real-nats";
import { CassandraServer } from "./real-cassandra";
import { JobKubelet } from "./job-kubelet";
import { CASSANDRA, CASSANDRA_CREDS_KEY, CASSANDRA_SERVICE_ROLES, CASSANDRA_SUPERUSER } from "../../lib/cassandra/contract";
import { podNetwork } from "./pod-network";

const REPO = path.resolve(__dirname, "..", "..");
const STACK = "rollout";
const NS = "vault-system";
const MEMBERS = ["openbao-server-0", "openbao-server-1", "openbao-server-2"];
const ROLLOUT_URN = /control-plane-openbao-rollout$/;
const MIN = 60_000;

const podIp = podAddress;
/** The sidecar credential as the program makes it from a key: base64("$oauthtoken:<key>"). */
const auth = (key: string) => Buffer.from(`$oauthtoken:${key}`).toString("base64");
/** The kid migration 03 made at install. */
const INSTALLED_KID = "fa85bab2-fccd-11f0-b875-82c3b2df389e";
/** The shared worker NKey the nats chart made at install. */
const CHART_NKEY = userNkey();

/** The stack's cassandraPassword at install: the roles and OpenBao's logins are made with it. */
const INSTALLED_CASSANDRA = "e2e-cassandra-password-0123456789";
/** The Deployments that log in to NATS with it, in the order the rotation restarts them. */
const NKEY_READERS = [
    ["nats-system", "nvcf-nats-auth-callout-service"],
    ["nvcf", "nvcf-api"],
    ["nvcf", "invocation"],
    ["nvcf", "grpc-proxy"],
    ["sis", "sis-api"],
    ["nats-system", "nats-box"],
] as const;

const found = findTools();
const tools = found.tools;
const skip = ownClusterSkip(found, "the rollout test needs its own API server (the OpenBao members answer its pod proxy)");

/** A small control plane: the releases the bundle always installs, OpenBao's StatefulSet on, no checks (the rollout checks). */
function stackConfig(rootToken: string) {
    return e2eStackConfig({
        cluster: { clusterIdentifier: "e2e-rollout", skipAwait: true },
        controlPlane: { observability: { profile: "disabled" }, certManager: { enabled: false } },
        other: {
            releases: {
                "openbao-server": { values: { e2eStatefulSet: true, e2eRootToken: rootToken } },
                // The Deployments that read the sidecar credential, restarted after it changes.
                api: { values: { e2eDeployment: "nvcf-api" } },
                "nvct-api": { values: { e2eDeployment: "nvct-api" } },
                // And those that read the master encryption keys.
                "ess-api": { values: { e2eDeployment: "ess-api-deployment" } },
                "api-keys": { values: { e2eDeployment: "api-keys" } },
                // And those that log in to NATS with the shared NKey; the nats chart's Secret holds it.
                "nats-auth-callout-service": { values: { e2eDeployment: "nvcf-nats-auth-callout-service" } },
                "invocation-service": { values: { e2eDeployment: "invocation" } },
                "grpc-proxy": { values: { e2eDeployment: "grpc-proxy" } },
                sis: { values: { e2eDeployment: "sis-api" } },
                nats: { values: { e2eDeployment: "nats-box", e2eNkey: { seed: CHART_NKEY.seed, pub: CHART_NKEY.publicKey } } },
                // The StatefulSet whose image the Cassandra password rotation's Job runs; the database is this suite's process.
                cassandra: { values: { e2eStatefulSet: true } },
            },
            // The smoke check has its cases in e2e.test.ts, which plays the kubelet of the charts' test Pods.
            checks: { preflight: { enabled: false }, healthGate: { enabled: false }, smoke: { helmTests: false } },
            // A replaced real member takes up to the grace period (10 s, then SIGKILL) to stop, then starts and unseals.
            openbaoRollout: { memberTimeoutSeconds: 30, pollSeconds: 1 },
            credentialRotation: { enabled: true, timeoutSeconds: 15, pollSeconds: 1 },
        },
    });
}

describe("end-to-end: OpenBao's OnDelete members rolled by pulumi up", { skip }, () => {
    let cluster: LocalCluster;
    let kube: Kube;
    let cli: PulumiCli;
    let work = "";
    let pods: OpenBaoPods;
    let nats: NatsServer;
    let natsNetwork: http.Server | undefined;
    let cassandra: CassandraServer;
    let jobKubelet: JobKubelet;

    const uids = () => pods.kubelet.uids();
    /** The member the sealed case kept sealed; the next case unseals it. */
    let sealed = "";
    let nvcfKubelet: PodKubelet;
    const kubeletErrors: string[] = [];
    let stopped = false;

    async function statefulSet(): Promise<any> {
        return kube.get(`/apis/apps/v1/namespaces/${NS}/statefulsets/openbao-server`);
    }

    /** Every member's pod is on the StatefulSet's update revision, and its status counts them all. */
    async function allOnUpdateRevision(): Promise<string> {
        const sts = await statefulSet();
        const revision = sts.status.updateRevision;
        for (const m of MEMBERS) {
            const pod = await kube.get<any>(`/api/v1/namespaces/${NS}/pods/${m}`);
            assert.equal(pod.metadata.labels["controller-revision-hash"], revision, `${m} on ${revision}`);
        }
        assert.equal(sts.status.updatedReplicas, sts.spec.replicas, "updatedReplicas equals replicas");
        return revision;
    }

    async function rolloutState(): Promise<any> {
        const { stdout } = await cli.run(["stack", "export"]);
        const resources: any[] = JSON.parse(stdout).deployment?.resources ?? [];
        return resources.find((r) => ROLLOUT_URN.test(r.urn))?.outputs;
    }

    async function setAnnotation(value: string): Promise<void> {
        await cli.run([
            "config",
            "set",
            "--path",
            'controlPlane.openbao.server.annotations["example.com/revision"]',
            value,
            "--type",
            "string",
        ]);
    }

    before(async () => {
        work = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-e2e-rollout-"));
        cluster = new LocalCluster(tools!);
        await cluster.boot();
        cluster.startControllerManager(tools!.kubeControllerManager, [
            "statefulset-controller",
            "deployment-controller",
            "replicaset-controller",
            "job-controller",
        ]);
        kube = new Kube(cluster.kubeconfig);
        nvcfKubelet = new PodKubelet(kube, ["nvcf", "ess", "api-keys", "nats-system", "sis"]);
        void (async () => {
            while (!stopped) {
                await nvcfKubelet.tick().catch((err: unknown) => kubeletErrors.push(String(err)));
                await new Promise((r) => setTimeout(r, 200));
            }
        })();
        // The Envoy Gateway controller's namespace is a prerequisite the stack never creates.
        await kube.request("POST", "/api/v1/namespaces", { metadata: { name: "envoy-gateway-system" } });
        pods = new OpenBaoPods(tools!, work, kube, NS, podIp!);
        nats = new NatsServer(tools!.natsServer, fs.mkdtempSync(path.join(work, "nats-")), ["APP"], 14222, 18222);
        fs.mkdirSync(path.join(work, "cassandra"));
        cassandra = new CassandraServer(tools!.cassandra, tools!.cqlsh, path.join(work, "cassandra"));
        await Promise.all([pods.start(), nats.start(), cassandra.start()]);
        // The Job's pods run here, the chart's Service being this machine's Cassandra.
        jobKubelet = new JobKubelet(
            kube,
            CASSANDRA.namespace,
            work,
            (env) => ({ ...env, CASSANDRA_HOSTS: "127.0.0.1", CASSANDRA_PORT: String(cassandra.port) }),
            path.dirname(tools!.cqlsh),
        );
        jobKubelet.start();
        // Migrations 09 and 20 at install: the kv-v2 mounts, and the sidecar credential the stack's key makes, written once.
        for (const t of Object.values(SIDECAR_PULL_SECRET)) {
            await mountKvV2(pods.bao.root, t.mount, t.key);
            assert.equal((await pods.bao.root("POST", `${t.mount}/data/${t.key}`, { data: { secret: auth("e2e-ngc-key") } })).status, 200);
        }
        // Migrations 02 and 03: the master encryption keys, one kid, as encryption_setup.sh makes them.
        const mek = `${MEK_STORED_DATA.mount}/data/${MEK_STORED_DATA.key}`;
        await mountKvV2(pods.bao.root, MEK_STORED_DATA.mount, MEK_STORED_DATA.key);
        const jwks = () => Buffer.from(JSON.stringify({ keys: [newJwk(INSTALLED_KID)] })).toString("base64");
        const keys = {
            keys: jwks(),
            current_kid: INSTALLED_KID,
            jwe_mapping: `{"payload_jwe_kid":"${INSTALLED_KID}"}`,
            private_jwks: jwks(),
        };
        assert.equal((await pods.bao.root("POST", mek, { data: keys })).status, 200);
        // And the nats chart's NKey Secret, copied into both places.
        const nkey = { key: CHART_NKEY.seed, public_key: CHART_NKEY.publicKey };
        assert.equal((await pods.bao.root("POST", `${NATS_CREDS.mount}/data/${NATS_CREDS.key}`, { data: nkey })).status, 200);
        const callout = {
            nkey_seed: "SUCALLOUT",
            nkey_signature: "SACALLOUT",
            shared_worker_nkey_pub: CHART_NKEY.publicKey,
            shared_worker_account: "APP",
        };
        const at = `${NATS_AUTH_CALLOUT_CREDS.mount}/data/${NATS_AUTH_CALLOUT_CREDS.key}`;
        assert.equal((await pods.bao.root("POST", at, { data: callout })).status, 200);
        // The Cassandra migrations' roles and the OpenBao migrations' logins, made with the stack's password.
        for (const [role, mount] of Object.entries(CASSANDRA_SERVICE_ROLES)) {
            const made = await cassandra.cql(
                CASSANDRA_SUPERUSER.user,
                CASSANDRA_SUPERUSER.password,
                `CREATE ROLE IF NOT EXISTS ${role} with login = true and password = '${INSTALLED_CASSANDRA}';`,
            );
            assert.equal(made.code, 0, made.out);
            // nvcf-api's and nvct-api's mounts exist already (the sidecar credential's).
            await mountKvV2(pods.bao.root, mount, CASSANDRA_CREDS_KEY, { mayExist: true });
            const login = `${mount}/data/${CASSANDRA_CREDS_KEY}`;
            assert.equal((await pods.bao.root("POST", login, { data: { username: role, password: INSTALLED_CASSANDRA } })).status, 200);
        }

        ({ cli } = await userCheckout({
            repo: REPO,
            work,
            tools: tools!,
            kubeconfig: cluster.kubeconfig,
            stack: STACK,
            config: stackConfig(pods.bao.rootToken),
            secrets: { ngcApiKey: "e2e-ngc-key", cassandraPassword: INSTALLED_CASSANDRA, kubeconfig: cluster.kubeconfig },
        }));
    });

    after(async () => {
        stopped = true;
        if (process.env.E2E_LOG && cli) fs.writeFileSync(process.env.E2E_LOG, cli.log.join("\n\n"));
        await new Promise((r) => (natsNetwork ? natsNetwork.close(r) : r(undefined)));
        await nats?.stop();
        await jobKubelet?.stop();
        await cassandra?.stop();
        await pods?.stop();
        await cluster?.stop();
        // The cluster is this test's own: nothing to destroy on it, it goes with its directory.
        if (process.env.E2E_KEEP !== "1") {
            cluster?.removeDir();
            if (work) fs.rmSync(work, { recursive: true, force: true });
        } else console.log(`# e2e kept: ${work} ${cluster?.dir ?? ""}`);
    });

    it("installs OpenBao's three members; creating the rollout replaces none", { timeout: 10 * MIN }, async () => {
        const res = await cli.run(["up", "--yes", "--skip-preview"]);
        await until("three Ready members", () => Promise.resolve(MEMBERS.every((m) => pods.kubelet.seen.has(m))));
        assert.deepEqual(pods.errors, []);
        assert.equal((await statefulSet()).spec.updateStrategy.type, "OnDelete");
        assert.deepEqual(pods.kubelet.replacements, []);
        const state = await rolloutState();
        assert.deepEqual(state.replaced, []);
        assert.match(res.stdout + res.stderr, /openbao-server rollout: nothing to replace/);
    });

    it(
        "an annotation change: preview shows the rollout; up replaces the standbys, then the leader after a step-down",
        { timeout: 10 * MIN },
        async () => {
            const before = uids();
            const oldRevision = (await statefulSet()).status.updateRevision;
            await setAnnotation("2");
            const preview = await cli.json<{ steps: any[] }>(["preview", "--diff"]);
            const step = preview.steps.find((s) => ROLLOUT_URN.test(s.urn));
            assert.equal(step?.op, "update", "the rollout is part of the plan");
            const annotation = (state: any) => state?.inputs?.podTemplate?.server?.annotations?.["example.com/revision"];
            assert.deepEqual([annotation(step.oldState), annotation(step.newState)], [undefined, "2"], "its diff is the annotation");
            assert.deepEqual(uids(), before, "preview replaces nothing");

            const res = await cli.run(["up", "--yes", "--skip-preview"]);
            const out = res.stdout + res.stderr;
            const revision = await allOnUpdateRevision();
            assert.notEqual(revision, oldRevision);
            assert.deepEqual(
                pods.kubelet.replacements.map((r) => r.name),
                ["openbao-server-2", "openbao-server-1", "openbao-server-0"],
                "standbys first, highest ordinal first, the leader last",
            );
            assert.ok(pods.kubelet.replacements.every((r) => r.revision === revision));
            // Each member back (unsealed) before the next went; the leader stepped down before its pod did.
            assert.deepEqual(pods.events, RUNBOOK_EVENTS);
            assert.notEqual(
                pods.leaderAtRestart.get("openbao-server-0"),
                "openbao-server-0",
                "openbao-server-0 led no more when its pod went",
            );
            assert.match(out, /openbao-server rollout: replacing openbao-server-2 \(a standby\)/);
            assert.match(out, /openbao-server rollout: openbao-server-0 is the leader: asking it to step down/);
            const state = await rolloutState();
            assert.deepEqual(state.replaced, ["openbao-server-2", "openbao-server-1", "openbao-server-0"]);
            assert.deepEqual(state.staleMembers, []);
            assert.equal(state.clusterId, await pods.clusterId());
        },
    );

    it("a rerun with nothing changed replaces nothing", { timeout: 10 * MIN }, async () => {
        const before = uids();
        const count = pods.kubelet.replacements.length;
        await cli.run(["preview", "--expect-no-changes"]);
        await cli.run(["up", "--yes", "--skip-preview"]);
        assert.deepEqual(uids(), before);
        assert.equal(pods.kubelet.replacements.length, count);
    });

    it(
        "a member that stays sealed stops up, naming it; the next members keep their pods; refresh shows them as drift",
        { timeout: 10 * MIN },
        async () => {
            const before = uids();
            // The election after the last step-down picks the leader; the rollout takes the highest-ordinal standby first.
            const leader = (await pods.bao.leader())!;
            sealed = MEMBERS.filter((m) => m !== leader).at(-1)!;
            const untouched = MEMBERS.filter((m) => m !== sealed);
            pods.staysSealed.add(sealed);
            await setAnnotation("3");
            const res = await cli.run(["up", "--yes", "--skip-preview"], { allowFailure: true });
            const out = res.stdout + res.stderr;
            assert.notEqual(res.code, 0);
            assert.ok(
                out.includes(
                    `${sealed} was replaced, but it is still sealed after 30 s. The rollout stopped before the next member: ` +
                        `${untouched.join(", ")} still run the old template`,
                ),
                `the error names ${sealed} and the members left (leader ${leader}):\n${out}`,
            );
            assert.ok(out.includes(`kubectl -n vault-system logs ${sealed} -c auto-unseal-sidecar`));
            const now = uids();
            MEMBERS.forEach((m, i) =>
                m === sealed
                    ? assert.notEqual(now[i], before[i], `${m} was replaced`)
                    : assert.equal(now[i], before[i], `${m} was not touched`),
            );

            await cli.run(["refresh", "--yes"]);
            assert.deepEqual((await rolloutState()).staleMembers, untouched);
            const preview = await cli.json<{ steps: any[] }>(["preview"]);
            assert.equal(preview.steps.find((s) => ROLLOUT_URN.test(s.urn))?.op, "update", "the plan finishes the rollout");
        },
    );

    it("once the member is unsealed, up goes on with the members left: the standby, then the leader", { timeout: 10 * MIN }, async () => {
        pods.staysSealed.clear();
        await pods.unseal(sealed);
        const leader = (await pods.bao.leader())!;
        const count = pods.kubelet.replacements.length;
        await cli.run(["up", "--yes", "--skip-preview"]);
        await allOnUpdateRevision();
        const rolled = pods.kubelet.replacements.slice(count).map((r) => r.name);
        assert.deepEqual(
            rolled.sort(),
            MEMBERS.filter((m) => m !== sealed),
        );
        assert.equal(pods.kubelet.replacements[pods.kubelet.replacements.length - 1].name, leader, "the leader last");
        assert.notEqual(pods.leaderAtRestart.get(leader), leader, "the leader stepped down before its pod went");
        assert.deepEqual((await rolloutState()).staleMembers, []);
    });

    it(
        "with the rollout off, preview and up say the members keep the old template and how to roll them",
        { timeout: 10 * MIN },
        async () => {
            const before = uids();
            await cli.run(["config", "set", "--path", "openbaoRollout.enabled", "false"]);
            await setAnnotation("4");
            const preview = await cli.run(["preview"]);
            const said = preview.stdout + preview.stderr;
            assert.match(
                said,
                /openbaoRollout\.enabled is false: after a change to OpenBao's pod template its members keep running the old one/,
            );
            assert.match(said, /openbao-server: its pod template changes and the automatic rollout is off/);
            const up = await cli.run(["up", "--yes", "--skip-preview"]);
            assert.match(
                up.stdout + up.stderr,
                /openbao-server: openbao-server-0, openbao-server-1, openbao-server-2 still run an old pod template \(the StatefulSet's is revision [^)]+\) and the automatic rollout is off; replace them one at a time/,
            );
            assert.deepEqual(uids(), before, "no pod replaced");
            assert.equal((await rolloutState()).staleMembers.length, 3);

            await cli.run(["config", "set", "--path", "openbaoRollout.enabled", "true"]);
            await cli.run(["up", "--yes", "--skip-preview"]);
            await allOnUpdateRevision();
        },
    );

    it(
        "the JWT mount checks (openbao.jwtPluginLifecycle.mode): baseline captured once, mounts checked after the rollout and after a change of mode",
        { timeout: 10 * MIN },
        async () => {
            await cli.run(["config", "set", "--path", "controlPlane.openbao.jwtPluginLifecycle.mode", "bridge"]);
            await setAnnotation("5");
            const bridge = await cli.run(["up", "--yes", "--skip-preview"]);
            assert.match(
                bridge.stdout + bridge.stderr,
                /openbao-server: JWT mounts checked against the baseline: 1 kept their plugin, 0 new/,
            );
            await allOnUpdateRevision();
            const baseline = async () => {
                const { stdout } = await cli.run(["stack", "export"]);
                return (JSON.parse(stdout).deployment.resources as any[]).find((r) => /openbao-jwt-baseline$/.test(r.urn))?.outputs
                    .baseline;
            };
            const captured = await baseline();
            // The chart's mount, on the plugin deploy.sh registered without a version.
            assert.deepEqual(
                captured.mounts.map((m: any) => [m.path, m.runningVersion, m.runningSha256]),
                [[`${NVCF_API_JWT_MOUNT}/`, "", pods.bao.jwtPluginSha256]],
            );
            // A bridge's new catalog entry, and a mount made on it since.
            await registerJwtPlugin(pods.bao.root, pods.bao.jwtPluginSha256, "v1.4.1");
            const mounted = await pods.bao.root("POST", "sys/mounts/services/new/jwt", {
                type: JWT_PLUGIN,
                config: { plugin_version: "v1.4.1" },
            });
            assert.equal(mounted.status, 204, mounted.text);
            const before = uids();
            await cli.run(["config", "set", "--path", "controlPlane.openbao.jwtPluginLifecycle.mode", "versioned"]);
            const versioned = await cli.run(["up", "--yes", "--skip-preview"]);
            assert.match(
                versioned.stdout + versioned.stderr,
                /JWT mounts checked against the baseline: 1 kept their plugin, 1 new on v1\.4\.1/,
            );
            assert.deepEqual(uids(), before, "the mode is no template change: no pod replaced");
            assert.deepEqual(await baseline(), captured, "the baseline is kept");
        },
    );

    /** The credential each kv-v2 place holds now. */
    async function storedCredentials(): Promise<unknown[]> {
        const out: unknown[] = [];
        for (const t of Object.values(SIDECAR_PULL_SECRET)) {
            const res = await pods.bao.root("GET", `${t.mount}/data/${t.key}`);
            out.push((res.body as { data: { data: { secret: unknown } } }).data.data.secret);
        }
        return out;
    }

    async function podsOf(deployment: string, namespace = "nvcf"): Promise<{ name: string; startTime?: string }[]> {
        const list = await kube.get<any>(`/api/v1/namespaces/${namespace}/pods?labelSelector=app.kubernetes.io%2Fname%3D${deployment}`);
        return (list?.items ?? [])
            .filter((p: any) => !p.metadata.deletionTimestamp)
            .map((p: any) => ({ name: p.metadata.name, startTime: p.status?.startTime }));
    }

    const replicaSets = async (deployment: string) =>
        (
            (await kube.get<any>(`/apis/apps/v1/namespaces/nvcf/replicasets?labelSelector=app.kubernetes.io%2Fname%3D${deployment}`))
                ?.items ?? []
        ).length;

    it(
        "the sidecar credential: a changed key shows in preview; up writes it to OpenBao and restarts nvcf-api and nvct-api; a rerun changes nothing",
        { timeout: 10 * MIN },
        async () => {
            await until("nvcf-api's two pods Ready", async () => (await podsOf("nvcf-api")).filter((p) => p.startTime).length === 2);
            assert.deepEqual(await storedCredentials(), [auth("e2e-ngc-key"), auth("e2e-ngc-key")], "created: nothing to write");
            const before = (await podsOf("nvcf-api")).map((p) => p.name);

            await cli.run(["config", "set", "--secret", "sidecarRegistryKey", "e2e-sidecar-key-2"]);
            const preview = await cli.run(["preview", "--diff"]);
            assert.match(preview.stdout, /~ pulumi-nodejs:dynamic\/nvcf:OpenBaoKvCredential: \(update\)/);
            assert.doesNotMatch(preview.stdout + preview.stderr, new RegExp(auth("e2e-sidecar-key-2")), "the value is never shown");
            assert.deepEqual(await storedCredentials(), [auth("e2e-ngc-key"), auth("e2e-ngc-key")], "preview writes nothing");

            const up = await cli.run(["up", "--yes", "--skip-preview"]);
            assert.deepEqual(await storedCredentials(), [auth("e2e-sidecar-key-2"), auth("e2e-sidecar-key-2")]);
            assert.match(up.stdout + up.stderr, /restarting deployment nvcf\/nvcf-api: .* started before the credential was written/);
            const after = await podsOf("nvcf-api");
            assert.equal(after.length, 2);
            assert.ok(
                after.every((p) => !before.includes(p.name)),
                `every nvcf-api pod replaced: ${JSON.stringify(after)}`,
            );
            assert.equal((await podsOf("nvct-api")).length, 2);
            assert.equal(await replicaSets("nvct-api"), 2, "nvct-api restarted once");

            await cli.run(["preview", "--expect-no-changes"]);
            const again = await cli.run(["up", "--yes", "--skip-preview"]);
            assert.doesNotMatch(again.stdout + again.stderr, /restarting deployment/);
            assert.equal(await replicaSets("nvcf-api"), 2, "no second restart");
            assert.deepEqual(kubeletErrors, []);
        },
    );

    it(
        "a restart that does not finish stops up, naming what was done; the next up finishes it without restarting again",
        { timeout: 10 * MIN },
        async () => {
            nvcfKubelet.hold = true;
            await cli.run(["config", "set", "--secret", "sidecarRegistryKey", "e2e-sidecar-key-3"]);
            const stuck = await cli.run(["up", "--yes", "--skip-preview"], { allowFailure: true });
            assert.notEqual(stuck.code, 0);
            assert.match(
                stuck.stdout + stuck.stderr,
                /the sidecar image-pull credential: the credential is written, but deployment nvcf\/nvcf-api has not rolled out after 15 s/,
            );
            assert.deepEqual(await storedCredentials(), [auth("e2e-sidecar-key-3"), auth("e2e-sidecar-key-3")]);
            const sets = await replicaSets("nvcf-api");
            assert.equal(sets, 3);

            nvcfKubelet.hold = false;
            const rerun = await cli.run(["up", "--yes", "--skip-preview"]);
            assert.doesNotMatch(rerun.stdout + rerun.stderr, /wrote services/, "nothing written again");
            assert.equal(await replicaSets("nvcf-api"), sets, "the same restart, not a second one");
            assert.equal(await replicaSets("nvct-api"), 3, "nvct-api, which the stopped run never reached, restarted once");
            await cli.run(["preview", "--expect-no-changes"]);
            assert.deepEqual(kubeletErrors, []);
        },
    );

    it(
        "the MEK: raising credentialRotation.mekRotations shows in preview; up adds a key and restarts ESS, api-keys, then nvcf-api; a rerun adds nothing",
        { timeout: 10 * MIN },
        async () => {
            const at = `${MEK_STORED_DATA.mount}/data/${MEK_STORED_DATA.key}`;
            const kids = async () => {
                const body = (await pods.bao.root("GET", at)).body as { data: { data: { keys: string; current_kid: string } } };
                const keys = JSON.parse(Buffer.from(body.data.data.keys, "base64").toString()).keys as { kid: string }[];
                return { current: body.data.data.current_kid, all: keys.map((k) => k.kid) };
            };
            assert.deepEqual(await kids(), { current: INSTALLED_KID, all: [INSTALLED_KID] });
            const before = (await podsOf("ess-api-deployment", "ess")).map((p) => p.name);

            await cli.run(["config", "set", "--path", "credentialRotation.mekRotations", "1"]);
            const preview = await cli.run(["preview", "--diff"]);
            assert.match(preview.stdout, /~ pulumi-nodejs:dynamic\/nvcf:OpenBaoMekRotation: \(update\)/);
            assert.deepEqual((await kids()).all, [INSTALLED_KID], "preview writes nothing");

            const up = await cli.run(["up", "--yes", "--skip-preview"]);
            const after = await kids();
            assert.equal(after.all.length, 2);
            assert.deepEqual([after.all[0], after.all[1]], [after.current, INSTALLED_KID], "the new key first, the old kept");
            const out = up.stdout + up.stderr;
            const order = ["ess/ess-api-deployment", "api-keys/api-keys", "nvcf/nvcf-api"].map((d) =>
                out.indexOf(`restarting deployment ${d}:`),
            );
            assert.ok(
                order.every((i) => i >= 0) && order[0] < order[1] && order[1] < order[2],
                `restart order: ${order.join(", ")}\n${out}`,
            );
            const replaced = await podsOf("ess-api-deployment", "ess");
            assert.ok(
                replaced.every((p) => !before.includes(p.name)),
                "every ESS pod replaced",
            );

            await cli.run(["preview", "--expect-no-changes"]);
            const again = await cli.run(["up", "--yes", "--skip-preview"]);
            assert.doesNotMatch(again.stdout + again.stderr, /is the current MEK|restarting deployment/);
            assert.equal((await kids()).all.length, 2, "no second key");
            assert.deepEqual(kubeletErrors, []);
        },
    );

    it(
        "the shared NATS NKey after the switch to token: refused while a worker holds it; up writes the Secret, then OpenBao, restarts the callout first; a held restart is finished by the next up; a nats upgrade keeps the key",
        { timeout: 10 * MIN },
        async () => {
            // nats-0: the NATS server's pod, which the API server's pod proxy reaches at the real nats-server's monitoring port.
            const created = await kube.request("POST", `/api/v1/namespaces/${NATS.namespace}/pods`, {
                metadata: { name: "nats-0" },
                spec: {
                    containers: [
                        { name: NATS.container, image: "nats", ports: [{ name: NATS.monitorPortName, containerPort: NATS.monitorPort }] },
                    ],
                },
            });
            assert.equal(created.status, 201, created.text);
            const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
            const status = await kube.request(
                "PATCH",
                `/api/v1/namespaces/${NATS.namespace}/pods/nats-0/status`,
                {
                    status: {
                        phase: "Running",
                        podIP: podIp,
                        podIPs: [{ ip: podIp }],
                        startTime: now,
                        conditions: [{ type: "Ready", status: "True" }],
                    },
                },
                "application/merge-patch+json",
            );
            assert.equal(status.status, 200, status.text);
            natsNetwork = await podNetwork(podIp!, NATS.monitorPort, (pod) =>
                pod === "nats-0" ? `http://127.0.0.1:${nats.monitorPort}` : undefined,
            );
            nats.appUsers = [`{ nkey: "${CHART_NKEY.publicKey}" }`];
            await nats.reload();
            // A worker started before the switch: it logged in with the shared key, named as NVIDIA's worker library names it.
            const oldWorker = await nats.connectNkey(CHART_NKEY.seed, "worker_fv1_instance1");
            const secretKey = async () => {
                const s = await kube.get<any>(`/api/v1/namespaces/${NATS.namespace}/secrets/${NKEY_SECRET.name}`);
                const field = (k: string) => Buffer.from(s.data[k], "base64").toString();
                const annotations = s.metadata.annotations ?? {};
                return {
                    seed: field(NKEY_SECRET.seed),
                    publicKey: field(NKEY_SECRET.publicKey),
                    mark: annotations[NKEY_ROTATION_MARK],
                    rotatedAt: annotations[NKEY_ROTATED_AT],
                };
            };
            assert.equal((await secretKey()).publicKey, CHART_NKEY.publicKey, "the chart made the Secret");

            // The operations' first step: the switch to token mode.
            await cli.run(["config", "set", "--path", "controlPlane.nats.workerAuth", "token"]);
            // The CLI takes the URL for a secret unless told it is not.
            await cli.run([
                "config",
                "set",
                "--plaintext",
                "--path",
                "controlPlane.nats.authCallout.workerTokenAuth.webhookUrl",
                "http://api.nvcf.svc.cluster.local:8080/v2/nvcf/webhook/nats-auth",
            ]);
            await cli.run(["up", "--yes", "--skip-preview"]);

            await cli.run(["config", "set", "--path", "credentialRotation.natsNkeyRotations", "1"]);
            const preview = await cli.run(["preview", "--diff"]);
            assert.match(preview.stdout, /~ pulumi-nodejs:dynamic\/nvcf:NatsNkeyRotation: \(update\)/);
            const refused = await cli.run(["up", "--yes", "--skip-preview"], { allowFailure: true });
            assert.notEqual(refused.code, 0);
            assert.match(
                refused.stdout + refused.stderr,
                /1 worker connection\(s\) may still hold the shared NKey, and a new key would cut them off: worker_fv1_instance1 on nats-0/,
            );
            assert.equal((await secretKey()).publicKey, CHART_NKEY.publicKey, "nothing written");

            oldWorker.close();
            await until("the worker gone from nats-0", async () => {
                const res = await kube.request("GET", `/api/v1/namespaces/${NATS.namespace}/pods/nats-0:${NATS.monitorPort}/proxy/connz`);
                return !res.text.includes("worker_fv1_instance1");
            });
            // The auth callout's new pods never turn Ready: up writes the key, restarts the callout and stops there.
            nvcfKubelet.hold = true;
            const stuck = await cli.run(["up", "--yes", "--skip-preview"], { allowFailure: true });
            assert.notEqual(stuck.code, 0);
            assert.match(
                stuck.stdout + stuck.stderr,
                /the NATS NKey rotation: the credential is written, but deployment nats-system\/nvcf-nats-auth-callout-service has not rolled out after 15 s/,
            );
            const rotated = await secretKey();
            assert.notEqual(rotated.publicKey, CHART_NKEY.publicKey);
            assert.equal(rotated.mark, "1");
            const stored = async (p: string) =>
                ((await pods.bao.root("GET", p)).body as { data: { data: Record<string, string> } }).data.data;
            assert.deepEqual(await stored(`${NATS_CREDS.mount}/data/${NATS_CREDS.key}`), {
                key: rotated.seed,
                public_key: rotated.publicKey,
            });
            const callout = await stored(`${NATS_AUTH_CALLOUT_CREDS.mount}/data/${NATS_AUTH_CALLOUT_CREDS.key}`);
            assert.equal(callout.shared_worker_nkey_pub, rotated.publicKey);
            assert.equal(callout.nkey_seed, "SUCALLOUT", "the callout's own fields kept");

            nvcfKubelet.hold = false;
            const finished = await cli.run(["up", "--yes", "--skip-preview"]);
            const out = finished.stdout + finished.stderr;
            assert.deepEqual(await secretKey(), rotated, "the stopped run's key, not a second one");
            const order = NKEY_READERS.slice(1).map(([ns, d]) => out.indexOf(`restarting deployment ${ns}/${d}:`));
            assert.ok(
                order.every((i, k) => i >= 0 && (k === 0 || order[k - 1] < i)),
                `restart order: ${order.join(", ")}\n${out}`,
            );
            const calloutSets = await kube.get<any>(
                `/apis/apps/v1/namespaces/nats-system/replicasets?labelSelector=app.kubernetes.io%2Fname%3Dnvcf-nats-auth-callout-service`,
            );
            // Its old pods still ran while the new ones waited; the same restartedAt stamp again starts nothing new.
            assert.equal(calloutSets?.items?.length, 2, "the callout restarted once, by the stopped run");
            for (const [ns, d] of NKEY_READERS) {
                const pods = await kube.get<any>(`/api/v1/namespaces/${ns}/pods?labelSelector=app.kubernetes.io%2Fname%3D${d}`);
                const live = (pods?.items ?? []).filter((p: any) => !p.metadata.deletionTimestamp);
                const written = Math.floor(Date.parse(rotated.rotatedAt) / 1000) * 1000;
                assert.equal(live.length, 2, `${ns}/${d}`);
                assert.ok(
                    live.every((p: any) => Date.parse(p.status.startTime) >= written),
                    `${ns}/${d}: every pod started after the key was written`,
                );
            }
            await cli.run(["preview", "--expect-no-changes"]);

            // A Helm upgrade of nats renders the Secret from lookup: the rotated key and its mark stay.
            await cli.run(["config", "set", "--path", 'controlPlane.nats.podAnnotations["example.com/revision"]', "2", "--type", "string"]);
            const upgraded = await cli.run(["up", "--yes", "--skip-preview"]);
            assert.doesNotMatch(upgraded.stdout + upgraded.stderr, /restarting deployment/);
            assert.deepEqual(await secretKey(), rotated);
            // What the callout now accepts: the new seed logs in, the old is refused.
            nats.appUsers = [`{ nkey: "${rotated.publicKey}" }`];
            await nats.reload();
            (await nats.connectNkey(rotated.seed, "nvcf-api")).close();
            await assert.rejects(nats.connectNkey(CHART_NKEY.seed, "nvcf-api"), /Authorization Violation/);
            assert.deepEqual(kubeletErrors, []);
        },
    );

    it(
        "the Cassandra password: a changed cassandraPassword shows in preview; up changes the roles in Cassandra through a Job, then OpenBao's logins, then restarts the readers; a held restart is finished by the next up without a second Job",
        { timeout: 10 * MIN },
        async () => {
            const logins = async () =>
                Promise.all(
                    Object.values(CASSANDRA_SERVICE_ROLES).map(
                        async (mount) => (await pods.bao.root("GET", `${mount}/data/${CASSANDRA_CREDS_KEY}`)).body.data.data.password,
                    ),
                );
            const logsIn = async (password: string) =>
                (await cassandra.cql("nvcf_api_app_v0", password, "SELECT key FROM system.local;")).code === 0;
            assert.deepEqual(new Set(await logins()), new Set([INSTALLED_CASSANDRA]));
            assert.deepEqual(jobKubelet.ran, [], "installed with the password the migrations used: no Job");

            await cli.run(["config", "set", "--secret", "cassandraPassword", "e2e-cassandra-rotated-1"]);
            const preview = await cli.run(["preview", "--diff"]);
            assert.match(preview.stdout, /~ pulumi-nodejs:dynamic\/nvcf:CassandraPasswordRotation: \(update\)/);
            assert.doesNotMatch(preview.stdout + preview.stderr, /e2e-cassandra-rotated-1/, "the value is never shown");
            assert.deepEqual(jobKubelet.ran, [], "preview runs nothing");

            // The first reader's pods never get Ready: up stops after Cassandra and OpenBao have the new password.
            nvcfKubelet.hold = true;
            const stuck = await cli.run(["up", "--yes", "--skip-preview"], { allowFailure: true });
            assert.notEqual(stuck.code, 0);
            assert.match(
                stuck.stdout + stuck.stderr,
                /the Cassandra password rotation: the credential is written, but deployment ess\/ess-api-deployment has not rolled out after 15 s/,
            );
            assert.equal(jobKubelet.ran.length, 1);
            assert.deepEqual(jobKubelet.errors, []);
            assert.ok(await logsIn("e2e-cassandra-rotated-1"), "the role takes the new password");
            assert.deepEqual(new Set(await logins()), new Set(["e2e-cassandra-rotated-1"]));

            nvcfKubelet.hold = false;
            const rerun = await cli.run(["up", "--yes", "--skip-preview"]);
            const out = rerun.stdout + rerun.stderr;
            assert.equal(jobKubelet.ran.length, 1, "no second Job: OpenBao holds the new password");
            const order = ["api-keys/api-keys", "sis/sis-api", "nvcf/nvcf-api", "nvcf/nvct-api"].map((d) =>
                out.indexOf(`restarting deployment ${d}:`),
            );
            assert.ok(
                order.every((i) => i >= 0) && order.every((i, k) => k === 0 || order[k - 1] < i),
                `restart order: ${order.join(", ")}\n${out}`,
            );
            await until("the old password refused", async () => !(await logsIn(INSTALLED_CASSANDRA)), 30_000);

            await cli.run(["preview", "--expect-no-changes"]);
            const again = await cli.run(["up", "--yes", "--skip-preview"]);
            assert.doesNotMatch(again.stdout + again.stderr, /restarting deployment/);
            assert.equal(jobKubelet.ran.length, 1);
            assert.deepEqual(kubeletErrors, []);
        },
    );
});
