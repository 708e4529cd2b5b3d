/**
 * `npm run recover` end to end against fakes: a local file backend in a temporary directory (its
 * locks and sidecars as Pulumi writes them), a stack in memory standing in for the Automation
 * API, an in-process API server (test/support/fake-kube-api.ts) holding Helm's records, and a
 * helm CLI that records what it is asked. No process is spawned.
 */
import * as assert from "node:assert/strict";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import type { KubeAccess } from "../lib/cluster-access/access";
import { helmFacts, objectFacts, providerAccess } from "../scripts/recover/cluster";
import { locateStack, readLocks, repairAttrs, tornAttrs, unreadableCheckpoint } from "../scripts/recover/file-backend";
import type { HelmAction } from "../scripts/recover/plan";
import { judgeLock, locksInMessage, type Processes } from "../scripts/recover/locks";
import type { PulumiStack } from "../scripts/recover/pulumi";
import { recover, type RecoverDeps, type RecoverOptions } from "../scripts/recover/run";
import { recoverCli } from "../scripts/recover/cli";
import type { ExportedState, StateResource } from "../scripts/recover/state";
import { FakeKubeApi, inProcessKube } from "./support/fake-kube-api";
import { helmRelease, object, op, PROVIDER_REF, secret } from "./support/recover-fixtures";
import type { HelmReleaseStatus } from "../lib/contracts/helm";

const KUBECONFIG = "apiVersion: v1\nkind: Config\n# the stack's secret kubeconfig\n";

/** The stack as the Automation API would show it; `refresh` plays the providers' read. */
class MemoryStack implements PulumiStack {
    exports = 0;
    readonly imports: ExportedState[] = [];
    readonly refreshed: string[][] = [];
    cancelled = 0;
    /** The CLI's answer while a lock is held (cleared by cancel). */
    lockError?: string;
    /** The providers read nothing (a refresh that did not do its job). */
    readsNothing = false;
    /** Another command changes the stack between two exports. */
    onExport?: (n: number) => void;

    constructor(public state: ExportedState) {}

    async export() {
        this.onExport?.(++this.exports);
        return structuredClone(this.state);
    }
    async import(state: ExportedState) {
        this.locked();
        this.imports.push(state);
        // As `pulumi stack import` does (pulumi/pulumi pkg/cmd/pulumi/stack/io.go): every pending operation is dropped.
        this.state = structuredClone({ ...state, deployment: { ...state.deployment, pending_operations: [] } });
    }
    async refresh(urns: readonly string[], onOutput: (t: string) => void) {
        this.locked();
        this.refreshed.push([...urns]);
        onOutput("Refreshing (dev):\n");
        if (this.readsNothing) return;
        const resources = (this.state.deployment.resources ?? []).map((r) =>
            urns.includes(r.urn) ? { ...r, outputs: { ...r.inputs, status: { revision: 1, status: "deployed" } } } : r,
        );
        this.state = { ...this.state, deployment: { ...this.state.deployment, resources } };
    }
    async cancel() {
        this.cancelled++;
        this.lockError = undefined;
    }
    private locked() {
        if (this.lockError) throw Object.assign(new Error("exit 255"), { commandResult: { stderr: this.lockError } });
    }
}

const providerResource: StateResource = {
    urn: PROVIDER_REF.slice(0, PROVIDER_REF.lastIndexOf("::")),
    id: "prov-1",
    type: "pulumi:providers:kubernetes",
    custom: true,
    inputs: { kubeconfig: secret(KUBECONFIG), context: "admin@dev", clusterIdentifier: "dev" },
};

function stateWith(pending: ReturnType<typeof op>[], resources: StateResource[] = []): ExportedState {
    return {
        version: 3,
        deployment: { manifest: { time: "t" }, resources: [providerResource, ...resources], pending_operations: pending },
    };
}

describe("recover: the command against fakes", () => {
    let dir = "";
    let fake: FakeKubeApi;
    let out = "";
    let helmCalls: { action: HelmAction; access: KubeAccess; timeout: number }[];
    let helmVersion: string | undefined;
    let live: Map<number, string>;
    let connected: KubeAccess[];

    /** Helm's record of nats (nats-system), revision 1, in the given status. */
    const putNats = (status: HelmReleaseStatus) =>
        fake.putRelease({ name: "nats", namespace: "nats-system", revision: 1, chart: "helm-nvcf-nats", version: "0.20.1", status });
    const lockDir = () => path.join(dir, ".pulumi", "locks", "organization", "nvcf-self-managed", "dev");
    const stackJson = () => path.join(dir, ".pulumi", "stacks", "nvcf-self-managed", "dev.json");

    function writeLock(pid: number, hostname = "here"): string {
        fs.mkdirSync(lockDir(), { recursive: true });
        const file = path.join(lockDir(), `${crypto.randomUUID()}.json`);
        fs.writeFileSync(file, JSON.stringify({ pid, username: "ops", hostname, timestamp: "2026-12-01T10:00:00Z" }));
        fs.writeFileSync(`${file}.attrs`, "{}");
        return file;
    }

    beforeEach(() => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "recover-test-"));
        fs.mkdirSync(path.dirname(stackJson()), { recursive: true });
        fs.writeFileSync(path.join(dir, ".pulumi", "meta.yaml"), "version: 1\n");
        fs.writeFileSync(stackJson(), JSON.stringify({ version: 3, checkpoint: {} }));
        fake = new FakeKubeApi();
        out = "";
        helmCalls = [];
        helmVersion = "v3.18.6";
        live = new Map();
        connected = [];
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    function deps(stack: MemoryStack, backendUrl = `file://${dir}`): RecoverDeps {
        const processes: Processes = { hostname: "here", alive: (pid) => live.has(pid), commandLine: (pid) => live.get(pid) };
        return {
            project: async () => ({ backendUrl, project: "nvcf-self-managed", select: async () => stack }),
            connect: async (access) => {
                connected.push(access);
                return inProcessKube(fake);
            },
            helm: {
                version: async () => helmVersion,
                run: async (action, access, timeout) => {
                    helmCalls.push({ action, access, timeout });
                },
            },
            processes,
            dataReleases: new Set(["cassandra"]),
            now: () => new Date("2026-12-01T12:00:00Z"),
        };
    }

    const io = { out: (t: string) => (out += t), err: (t: string) => (out += t) };
    const options = (more: Partial<RecoverOptions> = {}): RecoverOptions => ({ stack: "dev", dir, force: false, dryRun: false, ...more });

    it("a stack with nothing to recover: exit 0, nothing imported or refreshed", async () => {
        const stack = new MemoryStack(stateWith([]));
        assert.equal(await recover(options(), deps(stack), io), 0);
        assert.match(out, /Locks:\n {2}- none/);
        assert.match(out, /Pending operations:\n {2}- none/);
        assert.match(out, /Done: the next `pulumi up` \(or `pulumi destroy`\) starts from a consistent state\./);
        assert.equal(stack.imports.length, 0);
        assert.equal(stack.refreshed.length, 0);
    });

    it("a stack the backend does not have: that alone, before any lock or file, exit 2 (with --dry-run too)", async () => {
        for (const dryRun of [false, true]) {
            let stdout = "";
            let stderr = "";
            const split = { out: (t: string) => (stdout += t), err: (t: string) => (stderr += t) };
            const stack = new MemoryStack(stateWith([]));
            assert.equal(await recover(options({ stack: "nosuch", dryRun }), deps(stack), split), 2);
            assert.equal(stdout, "", "no header, no Locks: before it");
            assert.equal(
                stderr,
                `recover: the backend file://${dir} has no stack nosuch of project nvcf-self-managed: ` +
                    "check the stack's name and the backend you are logged in to (pulumi whoami -v; pulumi stack ls)\n",
            );
            assert.equal(stack.exports, 0);
        }
    });

    it("on a backend that is not files, the CLI's word that the stack is missing comes first and alone, exit 2", async () => {
        let stdout = "";
        let stderr = "";
        const missing: RecoverDeps = {
            ...deps(new MemoryStack(stateWith([]))),
            project: async () => ({
                backendUrl: "https://api.pulumi.com",
                project: "nvcf-self-managed",
                select: async () => {
                    throw new Error("error: no stack named 'nosuch' found");
                },
            }),
        };
        const split = { out: (t: string) => (stdout += t), err: (t: string) => (stderr += t) };
        assert.equal(await recover(options({ stack: "nosuch" }), missing, split), 2);
        assert.equal(stdout, "");
        assert.equal(stderr, "recover: cannot select the stack nosuch: error: no stack named 'nosuch' found\n");
    });

    it("a stale lock and a torn sidecar: the sidecar is backed up and rewritten, the lock removed", async () => {
        const lock = writeLock(4242);
        fs.writeFileSync(`${stackJson()}.attrs`, "");
        const stack = new MemoryStack(stateWith([]));
        assert.equal(await recover(options(), deps(stack), io), 0, out);
        assert.match(out, /held by ops@here \(pid 4242\) since 2026-12-01T10:00:00Z, which no longer runs; will remove it/);
        assert.match(out, /dev\.json\.attrs cannot be read \(empty\); will back it up to/);
        assert.equal(fs.existsSync(lock), false);
        assert.equal(fs.existsSync(`${lock}.attrs`), false);
        const attrs = JSON.parse(fs.readFileSync(`${stackJson()}.attrs`, "utf8"));
        assert.equal(attrs.md5, crypto.createHash("md5").update(fs.readFileSync(stackJson())).digest("base64"));
        assert.equal(attrs["user.content_type"], "text/plain; charset=utf-8");
        const backup = path.join(
            dir,
            ".pulumi",
            "backups",
            "recover",
            "2026-12-01T12-00-00-000Z",
            ".pulumi",
            "stacks",
            "nvcf-self-managed",
            "dev.json.attrs",
        );
        assert.equal(fs.readFileSync(backup, "utf8"), "", "the torn sidecar is kept");
    });

    it("a lock a running pulumi holds: left alone, nothing read or changed, the steps say wait or Ctrl-C once", async () => {
        const lock = writeLock(77);
        live.set(77, "/usr/bin/pulumi up --yes");
        fs.writeFileSync(`${stackJson()}.attrs`, "");
        const stack = new MemoryStack(stateWith([op("creating", helmRelease("nats", "nats-system"))]));
        assert.equal(await recover(options(), deps(stack), io), 1);
        assert.match(out, /which is still running; leaves it/);
        assert.match(out, /press Ctrl-C once in its terminal .* never kill it/);
        assert.match(out, /--force removes the lock/);
        assert.ok(fs.existsSync(lock));
        assert.equal(fs.readFileSync(`${stackJson()}.attrs`, "utf8"), "", "nothing repaired while a run may be writing");
        assert.equal(stack.exports, 0);
    });

    it("a lock from another host is left alone unless --force; a recycled pid is stale", async () => {
        const lock = writeLock(12, "ci-runner-7");
        assert.equal(await recover(options(), deps(new MemoryStack(stateWith([]))), io), 1);
        assert.match(out, /on another host than this one \(here\)/);
        assert.ok(fs.existsSync(lock));
        assert.equal(await recover(options({ force: true }), deps(new MemoryStack(stateWith([]))), io), 0);
        assert.match(out, /will remove it \(--force\)/);
        assert.equal(fs.existsSync(lock), false);
        live.set(99, "/usr/sbin/sshd");
        assert.equal(judgeLock({ where: "x", pid: 99, hostname: "here" }, deps(new MemoryStack(stateWith([]))).processes).verdict, "stale");
    });

    it("a release Helm finished and an object created, neither recorded: both adopted in one import, then read; the provider's kubeconfig reaches the cluster", async () => {
        putNats("deployed");
        fake.put("/apis/apps/v1", { resources: [{ name: "daemonsets", kind: "DaemonSet", namespaced: true }] });
        fake.put("/apis/apps/v1/namespaces/kube-system/daemonsets/node-inotify-tuner", {
            metadata: { name: "node-inotify-tuner", managedFields: [{ manager: "pulumi-kubernetes-5e6f7a8b" }] },
        });
        const release = helmRelease("nats", "nats-system");
        const ds = object("DaemonSet", "node-inotify-tuner", "kube-system", "apps/v1");
        const stack = new MemoryStack(stateWith([op("creating", release), op("creating", ds)]));
        assert.equal(await recover(options(), deps(stack), io), 0, out);
        assert.equal(stack.imports.length, 1);
        const imported = stack.imports[0].deployment;
        assert.deepEqual(imported.pending_operations, []);
        const byUrn = new Map(imported.resources!.map((r) => [r.urn, r]));
        assert.equal(byUrn.get(release.urn)?.id, "nats-system/nats");
        assert.equal(byUrn.get(ds.urn)?.id, "kube-system/node-inotify-tuner");
        assert.equal(byUrn.get(ds.urn)?.outputs?.__fieldManager, "pulumi-kubernetes-5e6f7a8b");
        assert.deepEqual(stack.refreshed, [[release.urn, ds.urn]]);
        assert.deepEqual(connected, [
            { kubeconfig: KUBECONFIG, context: "admin@dev", source: "the kubeconfig of the stack's kubernetes provider control-plane" },
        ]);
        assert.deepEqual(helmCalls, [], "nothing reinstalled, no helm command");
        assert.match(out, /Helm release nats-system\/nats \(control-plane-nats\): found Helm finished the install/);
        assert.ok(!out.includes("s3cret") && !out.includes("secret kubeconfig"), "no secret in the output");
    });

    it("a release stuck pending-install without helm on PATH: the state is not changed (its operation must stay), the helm command printed", async () => {
        putNats("pending-install");
        helmVersion = undefined;
        const ns = object("Namespace", "nvcf");
        const stack = new MemoryStack(stateWith([op("creating", helmRelease("nats", "nats-system")), op("creating", ns)]));
        assert.equal(await recover(options(), deps(stack), io), 1);
        assert.match(
            out,
            /there is no helm CLI \(3\.x\) on PATH: the 1 release\(s\) that need a rollback or an uninstall stay as they were/,
        );
        assert.match(out, /helm uninstall nats --namespace nats-system --timeout 900s/);
        assert.match(
            out,
            /Stopped: the stack's state was not changed: 1 pending operation\(s\) must stay in it until this command can resolve them/,
        );
        assert.equal(stack.imports.length, 0, "an import would drop the release's operation too");
        assert.equal(stack.state.deployment.pending_operations!.length, 2);
    });

    it("a release stuck pending-install with helm: uninstalled with the provider's kubeconfig, then the create cleared", async () => {
        putNats("pending-install");
        const release = helmRelease("nats", "nats-system");
        const stack = new MemoryStack(stateWith([op("creating", release)]));
        assert.equal(await recover(options(), deps(stack), io), 0, out);
        assert.deepEqual(helmCalls, [
            {
                action: { kind: "uninstall", name: "nats", namespace: "nats-system" },
                access: {
                    kubeconfig: KUBECONFIG,
                    context: "admin@dev",
                    source: "the kubeconfig of the stack's kubernetes provider control-plane",
                },
                timeout: 900,
            },
        ]);
        assert.deepEqual(stack.imports[0].deployment.pending_operations, []);
        assert.ok(!stack.imports[0].deployment.resources!.some((r) => r.urn === release.urn), "not adopted");
    });

    const putCassandra = (status: HelmReleaseStatus) =>
        fake.putRelease({
            name: "cassandra",
            namespace: "cassandra-system",
            revision: 1,
            chart: "helm-nvcf-cassandra",
            version: "0.20.1",
            status,
            created: "2026-12-01T11:00:00Z",
            manifest: "kind: StatefulSet\nmetadata:\n  name: cassandra\nspec:\n  volumeClaimTemplates:\n  - metadata:\n      name: data\n",
        });
    const putClaim = (phase: "Bound" | "Pending", created = "2026-12-01T11:00:03Z") =>
        fake.put("/api/v1/namespaces/cassandra-system/persistentvolumeclaims/data-cassandra-0", {
            metadata: { name: "data-cassandra-0", creationTimestamp: created },
            status: { phase },
        });

    it("Cassandra stuck pending-install with a bound claim: left as it was, even with --yes; the release beside it is resolved", async () => {
        putCassandra("pending-install");
        putClaim("Bound");
        putNats("pending-install");
        const cassandra = helmRelease("cassandra", "cassandra-system");
        const stack = new MemoryStack(stateWith([op("creating", cassandra), op("creating", helmRelease("nats", "nats-system"))]));
        assert.equal(await recover(options({ yes: true }), deps(stack), io), 1);
        assert.match(out, /data-cassandra-0 \(bound to a volume, made during this install\)/);
        assert.match(out, /kubectl -n cassandra-system delete pvc data-cassandra-0/);
        assert.deepEqual(
            helmCalls.map((c) => `${c.action.kind} ${c.action.name}`),
            ["uninstall nats"],
            "nats (no data) uninstalled; Cassandra not, even with --yes",
        );
        assert.equal(stack.imports.length, 1);
        assert.deepEqual(stack.state.deployment.pending_operations, [], "the import drops Cassandra's operation with the rest");
        assert.match(
            out,
            /What recover did:\n {2}- Helm release nats-system\/nats \(control-plane-nats\): uninstalled it, cleared the pending operation/,
        );
        assert.match(
            out,
            /What it did not do:\n {2}- Helm release cassandra-system\/cassandra \(control-plane-cassandra\): left it as it was in the cluster \(needs you\)/,
        );
        assert.match(
            out,
            /Stopped: 1 pending operation\(s\) left as they were in the cluster, everything else is resolved; the next `pulumi up` can fail only on these/,
        );
        assert.doesNotMatch(out, /Done: the next/);
    });

    it("Cassandra's first install with no bound volume: the report asks for --yes and changes nothing; with it, both releases are uninstalled and it says Cassandra's secrets will be new", async () => {
        putCassandra("pending-install");
        putClaim("Pending");
        putNats("pending-install");
        const cassandra = helmRelease("cassandra", "cassandra-system");
        const stack = new MemoryStack(stateWith([op("creating", cassandra), op("creating", helmRelease("nats", "nats-system"))]));
        assert.equal(await recover(options(), deps(stack), io), 1);
        assert.match(
            out,
            /data-cassandra-0 \(not bound to any volume, made during this install\), so nothing it wrote to a volume was kept/,
        );
        assert.match(out, /npm run recover -- --stack dev --yes uninstalls it/);
        assert.match(out, /Stopped: the stack's state was not changed/);
        assert.match(out, /Helm release nats-system\/nats \(control-plane-nats\): found .*; once that is done, would uninstall it/);
        assert.equal(helmCalls.length, 0, "one confirmation first, then everything");
        assert.equal(stack.imports.length, 0);

        out = "";
        assert.equal(await recover(options({ yes: true }), deps(stack), io), 0, out);
        assert.deepEqual(
            helmCalls.map((c) => `${c.action.kind} ${c.action.name}`),
            ["uninstall cassandra", "uninstall nats"],
        );
        assert.match(
            out,
            /will uninstall it \(helm -n cassandra-system uninstall cassandra, confirmed with --yes\).*the secrets its chart generates at install \(passwords, keys\) will be new/,
        );
        assert.deepEqual(stack.state.deployment.pending_operations, []);
        assert.match(out, /Done: the next `pulumi up`/);
    });

    it("a pending create a later run recorded is cleared without touching the release, and not reported again", async () => {
        putNats("deployed");
        const release = helmRelease("nats", "nats-system");
        const recorded = { ...release, id: "nats-system/nats", outputs: { ...release.inputs, status: { revision: 1 } } };
        const stack = new MemoryStack(stateWith([op("creating", release)], [recorded]));
        assert.equal(await recover(options(), deps(stack), io), 0, out);
        assert.match(out, /found a pending create left over from an earlier run/);
        assert.deepEqual(helmCalls, []);
        assert.equal(stack.state.deployment.resources!.filter((r) => r.urn === release.urn).length, 1, "recorded once");
        out = "";
        assert.equal(await recover(options(), deps(stack), io), 0, out);
        assert.match(out, /Pending operations:\n {2}- none/);
    });

    it("helm fails: stops with Helm's message, the state unchanged; a CLI failure shows its stderr only", async () => {
        putNats("pending-install");
        const stack = new MemoryStack(stateWith([op("creating", helmRelease("nats", "nats-system"))]));
        const failing = deps(stack);
        const broken = {
            ...failing,
            helm: {
                version: async () => "v3.18.6",
                run: async () => {
                    throw new Error('helm uninstall nats failed: Error: uninstall: Release not loaded: nats: "context deadline exceeded"');
                },
            },
        };
        assert.equal(await recover(options(), broken, io), 1);
        assert.match(out, /not done: helm uninstall nats failed: .*context deadline exceeded/);
        assert.match(out, /Stopped: the stack's state was not changed/);
        assert.match(out, /Fix what Helm says \(helm -n nats-system history nats\)/);
        assert.equal(stack.imports.length, 0, "the state is as it was");

        out = "";
        const noPassphrase = new MemoryStack(stateWith([]));
        noPassphrase.export = async () => {
            throw Object.assign(new Error("code: 255\n stdout: {secret state}\n stderr: error: incorrect passphrase"), {
                commandResult: { stdout: "{secret state}", stderr: "error: incorrect passphrase" },
            });
        };
        assert.equal(await recover(options(), deps(noPassphrase), io), 2);
        assert.match(out, /recover: error: incorrect passphrase\n$/);
        assert.ok(!out.includes("secret state"));
    });

    it("--dry-run: prints the findings and the plan, changes nothing", async () => {
        const lock = writeLock(4242);
        putNats("pending-install");
        const stack = new MemoryStack(stateWith([op("creating", helmRelease("nats", "nats-system"))]));
        assert.equal(await recover(options({ dryRun: true }), deps(stack), io), 0);
        assert.match(out, /will uninstall it/);
        assert.match(out, /Dry run: nothing was changed\./);
        assert.ok(fs.existsSync(lock));
        assert.deepEqual(helmCalls, []);
        assert.equal(stack.imports.length, 0);
    });

    it("another backend: a lock the CLI reports is judged the same way; a stale one is cancelled and the command rerun", async () => {
        const message =
            "error: the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file with `pulumi cancel`.\n" +
            "  s3://state/.pulumi/locks/organization/nvcf-self-managed/dev/1.json: created by ops@here (pid 4242) at 2026-12-01T10:00:00Z";
        const stack = new MemoryStack(stateWith([]));
        stack.lockError = message;
        assert.equal(await recover(options(), deps(stack, "s3://state"), io), 0, out);
        assert.equal(stack.cancelled, 1);
        assert.equal(stack.imports.length, 1, "the import proves the lock is gone");
        const held = new MemoryStack(stateWith([]));
        held.lockError = message;
        live.set(4242, "pulumi destroy");
        assert.equal(await recover(options(), deps(held, "s3://state"), io), 1);
        assert.equal(held.cancelled, 0);
    });

    it("the pending operations change while it runs: it stops before importing", async () => {
        putNats("deployed");
        const stack = new MemoryStack(stateWith([op("creating", helmRelease("nats", "nats-system"))]));
        stack.onExport = (n) => {
            if (n === 2) stack.state = stateWith([]);
        };
        assert.equal(await recover(options(), deps(stack), io), 1);
        assert.match(out, /changed while this command ran: another command is running on it/);
        assert.equal(stack.imports.length, 0);
    });

    it("a refresh that read nothing fails the check at the end, and the next run reads those resources again", async () => {
        putNats("deployed");
        const release = helmRelease("nats", "nats-system");
        const stack = new MemoryStack(stateWith([op("creating", release)]));
        stack.readsNothing = true;
        assert.equal(await recover(options(), deps(stack), io), 1);
        assert.match(out, /still not consistent: resources were not read by their providers/);
        stack.readsNothing = false;
        out = "";
        assert.equal(await recover(options(), deps(stack), io), 0, out);
        assert.match(out, /adopted by an earlier recovery that did not finish; will read it/);
        assert.deepEqual(stack.refreshed.at(-1), [release.urn]);
    });

    it("a checkpoint that is itself unreadable: stops and points at Pulumi's backups", async () => {
        fs.writeFileSync(stackJson(), '{"version": 3, "checkp');
        assert.equal(await recover(options(), deps(new MemoryStack(stateWith([]))), io), 1);
        assert.match(out, /the checkpoint .*dev\.json itself cannot be read/);
        assert.match(out, /pulumi stack import --stack dev --file <it>/);
    });
});

describe("recover: the file backend, locks and the cluster's facts", () => {
    it("reads the layout from meta.yaml, finds torn sidecars, repairs one whose file is gone by removing it", () => {
        const root = fs.mkdtempSync(path.join(os.tmpdir(), "recover-fb-"));
        try {
            assert.equal(locateStack(root, "p", "dev").stackPath, "dev", "no meta.yaml: the legacy layout");
            fs.mkdirSync(path.join(root, ".pulumi", "stacks", "p"), { recursive: true });
            fs.writeFileSync(path.join(root, ".pulumi", "meta.yaml"), "version: 1\n");
            const b = locateStack(root, "p", "dev");
            assert.equal(b.stackPath, "organization/p/dev");
            const base = path.join(root, ".pulumi", "stacks", "p", "dev.json");
            fs.writeFileSync(base, "{}");
            fs.writeFileSync(`${base}.attrs`, '{"user.cache_con');
            fs.writeFileSync(`${base}.bak.attrs`, "");
            fs.writeFileSync(path.join(root, ".pulumi", "meta.yaml.attrs"), '{"md5":"x"}');
            const torn = tornAttrs(b);
            assert.deepEqual(
                torn.map((t) => [path.basename(t.attrs), t.problem === "empty" ? "empty" : "json"]),
                [
                    ["dev.json.attrs", "json"],
                    ["dev.json.bak.attrs", "empty"],
                ],
            );
            repairAttrs(torn[1], path.join(root, "bk"), root);
            assert.equal(fs.existsSync(`${base}.bak.attrs`), false, "no blob: the sidecar goes");
            assert.equal(unreadableCheckpoint(base), undefined);
            assert.deepEqual(readLocks(b), []);
            fs.mkdirSync(path.join(root, ".pulumi", "locks", "organization", "p", "dev"), { recursive: true });
            fs.writeFileSync(path.join(root, ".pulumi", "locks", "organization", "p", "dev", "x.json"), "{not json");
            assert.match(readLocks(b)[0].unreadable ?? "", /the lock file cannot be read/);
        } finally {
            fs.rmSync(root, { recursive: true, force: true });
        }
    });

    it("parses the DIY backends' lock message and Pulumi Cloud's conflict", () => {
        const diy =
            "error: the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file with `pulumi cancel`.\n" +
            "  file:///tmp/s/.pulumi/locks/organization/p/dev/2dfd.json?no_tmp_dir=true: created by root@vm (pid 1969) at 2026-12-01T23:16:38Z";
        assert.deepEqual(locksInMessage(diy), [
            {
                where: "file:///tmp/s/.pulumi/locks/organization/p/dev/2dfd.json?no_tmp_dir=true",
                username: "root",
                hostname: "vm",
                pid: 1969,
                timestamp: "2026-12-01T23:16:38Z",
            },
        ]);
        const cloud = locksInMessage("error: [409] Conflict: Another update is currently in progress.");
        assert.equal(judgeLock(cloud![0], { hostname: "vm", alive: () => false, commandLine: () => undefined }).verdict, "unknown");
        assert.equal(locksInMessage("error: something else"), undefined);
    });

    it("reads a release's history oldest first and the claims that belong to it", async () => {
        const fake = new FakeKubeApi();
        const kube = inProcessKube(fake);
        for (const [revision, status] of [
            [2, "pending-upgrade"],
            [1, "deployed"],
        ] as const) {
            fake.putRelease({
                name: "vm",
                namespace: "monitoring",
                revision,
                chart: "victoria-metrics-single",
                version: "0.1",
                status,
                manifest: "kind: PersistentVolumeClaim\nmetadata:\n  name: vm-data\n",
                created: `2026-12-01T1${revision}:00:00Z`,
            });
        }
        fake.putRelease({ name: "other", namespace: "monitoring", revision: 1, chart: "x", version: "1", status: "deployed" });
        fake.put("/api/v1/namespaces/monitoring/persistentvolumeclaims/vm-data", { metadata: { name: "vm-data" } });
        fake.put("/api/v1/namespaces/monitoring/persistentvolumeclaims/by-label", {
            metadata: { name: "by-label", labels: { "app.kubernetes.io/instance": "vm" }, creationTimestamp: "2026-12-01T11:00:03Z" },
            status: { phase: "Bound" },
        });
        fake.put("/api/v1/namespaces/monitoring/persistentvolumeclaims/someone-elses", { metadata: { name: "someone-elses" } });
        const facts = await helmFacts(kube, "monitoring", "vm");
        assert.deepEqual(
            facts.history.map((r) => `${r.revision} ${r.status}`),
            ["1 deployed", "2 pending-upgrade"],
        );
        assert.deepEqual(
            facts.history.map((r) => r.recordedAt),
            ["2026-12-01T11:00:00Z", "2026-12-01T12:00:00Z"],
            "when each record was stored",
        );
        assert.deepEqual(facts.claims, [
            { name: "by-label", bound: true, createdAt: "2026-12-01T11:00:03Z" },
            { name: "vm-data", bound: false },
        ]);
        assert.equal(facts.declaresVolumes, true);
        assert.deepEqual(await helmFacts(kube, "monitoring", "absent"), { history: [], claims: [], declaresVolumes: false });
    });

    it("finds an object through discovery: not served, absent, or present with the provider's field manager", async () => {
        const fake = new FakeKubeApi();
        const kube = inProcessKube(fake);
        assert.deepEqual(await objectFacts(kube, "kyverno.io/v1", "ClusterPolicy", undefined, "p"), {
            served: false,
            namespaced: false,
            exists: false,
        });
        fake.put("/api/v1", {
            resources: [
                { name: "namespaces", kind: "Namespace", namespaced: false },
                { name: "namespaces/finalize", kind: "Namespace", namespaced: false },
            ],
        });
        assert.deepEqual(await objectFacts(kube, "v1", "Namespace", undefined, "nvcf"), { served: true, namespaced: false, exists: false });
        fake.put("/api/v1/namespaces/nvcf", {
            metadata: { name: "nvcf", managedFields: [{ manager: "kubectl" }, { manager: "pulumi-kubernetes-0a1b2c3d" }] },
        });
        assert.deepEqual(await objectFacts(kube, "v1", "Namespace", undefined, "nvcf"), {
            served: true,
            namespaced: false,
            exists: true,
            fieldManager: "pulumi-kubernetes-0a1b2c3d",
        });
    });

    it("reaches a cluster as the provider does: its kubeconfig text, or a path it names, and its context", () => {
        const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "recover-kc-")), "config");
        fs.writeFileSync(file, KUBECONFIG);
        try {
            assert.deepEqual(providerAccess({ ...providerResource, inputs: { kubeconfig: file } }).kubeconfig, KUBECONFIG);
            assert.deepEqual(providerAccess({ ...providerResource, inputs: {} }), {
                source: "the kubeconfig of the stack's kubernetes provider control-plane",
            });
        } finally {
            fs.rmSync(path.dirname(file), { recursive: true, force: true });
        }
    });
});

describe("recover: the command line", () => {
    it("--help, a missing --stack, npm's missing --, a directory without Pulumi.yaml", async () => {
        let out = "";
        const io = { out: (t: string) => (out += t), err: (t: string) => (out += t) };
        assert.equal(await recoverCli(["--help"], io), 0);
        assert.match(out, /--stack <name>\s+the stack \(required\)/);
        out = "";
        assert.equal(await recoverCli([], io, {}), 2);
        assert.match(out, /--stack is required\nusage: npm run --silent recover -- --stack <name>/);
        out = "";
        assert.equal(await recoverCli(["dev"], io, { npm_lifecycle_event: "recover", npm_config_stack: "true" }), 2);
        assert.match(out, /npm took --stack for itself \(a `--` is missing\): npm run recover -- --stack dev/);
        out = "";
        const empty = fs.mkdtempSync(path.join(os.tmpdir(), "recover-cli-"));
        try {
            assert.equal(await recoverCli(["--stack", "dev", "--dir", empty], io, {}), 2);
            assert.match(out, /no Pulumi\.yaml in /);
        } finally {
            fs.rmSync(empty, { recursive: true, force: true });
        }
    });

    it("passes --dry-run and --force on, and opens the stack in --dir", async () => {
        let out = "";
        const io = { out: (t: string) => (out += t), err: (t: string) => (out += t) };
        const dirs: string[] = [];
        const stack = new MemoryStack(stateWith([]));
        const code = await recoverCli(
            ["--stack", "dev", "--dry-run", "--force", "--yes", "--dir", "."],
            io,
            {},
            {
                project: async (dir) => {
                    dirs.push(dir);
                    return { backendUrl: "s3://bucket", project: "nvcf-self-managed", select: async () => stack };
                },
            },
        );
        assert.equal(code, 0, out);
        assert.deepEqual(dirs, [path.resolve(".")]);
        assert.match(out, /\(dry run: nothing is changed\)/);
        assert.equal(stack.imports.length, 0);
    });
});
