/**
 * The fleet's environments run by the real Pulumi Kubernetes Operator (issue #49): its manager
 * (v2.9.0, the version fleet/ pins) as a process of this machine in the operator's local mode
 * (WORKSPACE_LOCALHOST), against the suite's kube-apiserver with the StatefulSet controller, and
 * its agent serving each workspace pod, played by a kubelet stand-in (workspace-kubelet.ts; the
 * pod's `fetch` is the operator's own `agent init` of a git repository made here from this
 * project). A `Stack` with the spec the fleet program makes (fleet/components/stack-spec.ts) for
 * an environment makes the operator run a real `pulumi up` of this program, on a real PostgreSQL
 * backend, with every credential from Secrets: the Stack reports success and the releases exist;
 * a new commit is rolled out; a failing update is reported with its message and retried; a
 * laptop's `pulumi up` while the operator's update holds the stack's lock is refused; a second
 * environment (staging, on an API server of its own) waits for its prerequisite's success;
 * deleting its Stack leaves its releases; deleting dev's with `destroyOnFinalize` destroys it.
 * Details: docs/operator-local-mode.md.
 *
 * Tools: scripts/e2e/build-tools.sh (with the `operator` tool: OPERATOR_SOURCE), and a
 * PostgreSQL server (initdb, postgres, psql). Run: npm run test:e2e.
 */
import * as assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { parse as fromYaml, parseAllDocuments, stringify as toYaml } from "yaml";
import { stackSpec } from "../../fleet/components/stack-spec";
import { readFleetFile } from "../../scripts/fleet/fleet-file";
import { findOperator } from "../../scripts/e2e/tools";
import {
    e2eSkip,
    finalizingNamespaces,
    findTools,
    freePorts,
    Kube,
    LocalCluster,
    stopProcess,
    stopWithThisProcess,
    until,
} from "./cluster";
import { freezeRun, RUN_MARKER } from "./kill-points";
import { backendUserEnv, findPostgres, PostgresServer } from "./postgres";
import { copyProject, LOCKED_BY_ONE, PulumiCli } from "./pulumi-cli";
import { LEAN_STACK_CONFIG } from "./stack-config";
import { installCrds } from "./upstream-crds";
import { WorkspaceKubelet } from "./workspace-kubelet";
import { runToEnd } from "../support/background";

const REPO = path.resolve(__dirname, "..", "..");
const PROJECT = "nvcf-self-managed";
/** The environment: its Stack, its stack, its workspace's ServiceAccount. */
const ENV = "dev";
/** The second environment, on a cluster of its own, with dev as its prerequisite. */
const STAGING = "staging";
const NS = "nvcf-fleet";
const OPERATOR_NS = "pulumi-kubernetes-operator";
/** The repository the Stack names: https, as the manager requires; the stand-in maps it to a local bare repository. */
const PROJECT_REPO = "https://git.invalid/e2e/nvcf-self-managed.git";
/** The Secret holding the environment's credentials, as the fleet file's secret references name it. */
const CREDENTIALS = "dev-credentials";
const MIN = 60_000;
const STACKS = `/apis/pulumi.com/v1/namespaces/${NS}/stacks`;
const WORKSPACES = `/apis/auto.pulumi.com/v1alpha1/namespaces/${NS}/workspaces`;
const UPDATES = `/apis/auto.pulumi.com/v1alpha1/namespaces/${NS}/updates`;
/** The fleet's stack whose fleet file declares the environment. */
const FLEET = "e2e";

const { tools, missing } = findTools();
const operator = findOperator();
const postgres = findPostgres();
const skip = e2eSkip({ tools, missing }, "runs on the suite's own API server (the operator's workspace pods are played by the suite)");

function git(cwd: string, ...args: string[]): string {
    const res = spawnSync("git", ["-c", "user.name=e2e", "-c", "user.email=e2e@nvcf.test", "-c", "init.defaultBranch=main", ...args], {
        cwd,
        encoding: "utf8",
    });
    if (res.status !== 0) throw new Error(`git ${args.join(" ")} exited ${res.status}: ${res.stderr}`);
    return res.stdout.trim();
}

/** A condition of an object's status, as `type=status reason`. */
const condition = (obj: any, type: string): any => (obj?.status?.conditions ?? []).find((c: any) => c.type === type);

describe("the fleet's environments run by the real Pulumi Kubernetes Operator", { skip }, () => {
    let cluster: LocalCluster;
    let kube: Kube;
    /** Staging's cluster: the program reaches it through the stack's `kubeconfig` secret. */
    let stagingCluster: LocalCluster;
    let stagingKube: Kube;
    let pg: PostgresServer;
    let kubelet: WorkspaceKubelet;
    let manager: ChildProcess;
    let work = "";
    let ci: PulumiCli;
    let laptop: PulumiCli;
    /** The commits of the repository the Stack runs: the project, a change, a failing config, the fix. */
    const commits: Record<"initial" | "change" | "failing" | "fix", string> = { initial: "", change: "", failing: "", fix: "" };
    const passphrase = crypto.randomBytes(18).toString("hex");
    const marker = crypto.randomUUID();
    let frozen: number[] = [];

    before(async () => {
        if (!operator.tools) throw new Error(`end-to-end tools: ${operator.missing}`);
        if (!postgres.tools) throw new Error(`end-to-end tools: ${postgres.missing}`);
        work = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-e2e-operator-"));
        pg = new PostgresServer(postgres.tools);
        cluster = new LocalCluster(tools!);
        stagingCluster = new LocalCluster(tools!);
        const stagingBooted = stagingCluster.boot();
        const kubeconfigFile = path.join(work, "kubeconfig");
        const { pluginDir, env: userEnv } = backendUserEnv({
            work,
            repo: REPO,
            cliBin: tools!.bin,
            backend: pg,
            passphrase: passphrase,
            kubeconfig: kubeconfigFile,
        });
        // The API server boots while PostgreSQL starts, the stack is made in it (the fleet's set-up,
        // docs/fleets.md: CI inits each environment's stack) and its commits are made.
        await Promise.all([
            cluster.boot(),
            stagingBooted,
            (async () => {
                await pg.start();
                const src = path.join(work, "ci");
                copyProject(REPO, src);
                ci = new PulumiCli(tools!.pulumi, src, userEnv("ci-home"));
                await ci.run(["login", pg.url]);
                const stackFile = path.join(src, `Pulumi.${ENV}.yaml`);
                fs.writeFileSync(stackFile, toYaml({ config: LEAN_STACK_CONFIG }));
                await ci.run(["stack", "init", ENV, "--secrets-provider", "passphrase"]);
                await ci.run(["config", "set", "--secret", "ngcApiKey", "e2e-ngc-key"]);
                await ci.run(["config", "set", "--secret", "cassandraPassword", "e2e-cassandra-password-0123456789"]);
                // Staging: the same program and settings, its cluster's kubeconfig a secret of its stack.
                fs.writeFileSync(path.join(src, `Pulumi.${STAGING}.yaml`), toYaml({ config: LEAN_STACK_CONFIG }));
                await ci.run(["stack", "init", STAGING, "--secrets-provider", "passphrase"]);
                await ci.run(["config", "set", "--secret", "ngcApiKey", "e2e-ngc-key"]);
                await ci.run(["config", "set", "--secret", "cassandraPassword", "e2e-cassandra-password-0123456789"]);
                await stagingBooted;
                await ci.run(["config", "set", "--secret", "kubeconfig", stagingCluster.kubeconfig]);
                await ci.run(["stack", "select", ENV]);
                // The installed dependencies are links in this checkout: never committed.
                const add = () => git(src, "add", "-A", "--", ".", ":!node_modules", ":!policies/node_modules");
                git(src, "init", "-q");
                add();
                git(src, "commit", "-q", "-m", "the project");
                commits.initial = git(src, "rev-parse", "HEAD");
                fs.appendFileSync(path.join(src, "README.md"), "\nA change the operator rolls out.\n");
                add();
                git(src, "commit", "-q", "-m", "a change");
                commits.change = git(src, "rev-parse", "HEAD");
                const good = fs.readFileSync(stackFile, "utf8");
                const broken = fromYaml(good);
                const cp = broken.config[`${PROJECT}:controlPlane`];
                cp.global.domian = cp.global.domain;
                fs.writeFileSync(stackFile, toYaml(broken));
                add();
                git(src, "commit", "-q", "-m", "a misspelt key");
                commits.failing = git(src, "rev-parse", "HEAD");
                fs.writeFileSync(stackFile, good);
                add();
                git(src, "commit", "-q", "-m", "the fix");
                commits.fix = git(src, "rev-parse", "HEAD");
                git(work, "clone", "-q", "--bare", src, path.join(work, "repo.git"));
                // A person's checkout at the same commit, on the same backend.
                copyProject(REPO, path.join(work, "laptop"));
                fs.writeFileSync(path.join(work, "laptop", `Pulumi.${ENV}.yaml`), good);
                laptop = new PulumiCli(tools!.pulumi, path.join(work, "laptop"), userEnv("laptop-home", pg.url));
                await laptop.run(["stack", "select", ENV]);
            })(),
        ]);
        kube = new Kube(cluster.kubeconfig);
        stagingKube = new Kube(stagingCluster.kubeconfig);
        fs.writeFileSync(kubeconfigFile, cluster.kubeconfig, { mode: 0o600 });
        cluster.startControllerManager(tools!.kubeControllerManager, ["statefulset-controller"]);

        // The operator's CRDs (created: the Stack CRD is far over client-side apply's annotation limit), its account and ClusterRole.
        const docs = (dir: string) =>
            fs
                .readdirSync(dir)
                .filter((f) => f.endsWith(".yaml"))
                .sort()
                .flatMap((f) => parseAllDocuments(fs.readFileSync(path.join(dir, f), "utf8")).map((d) => d.toJS()))
                .filter(Boolean);
        await installCrds(kube, docs(operator.tools.crds));
        const create = async (p: string, obj: unknown) => {
            const res = await kube.request("POST", p, obj);
            if (res.status !== 201) throw new Error(`POST ${p}: ${res.status} ${res.text.slice(0, 300)}`);
        };
        for (const ns of [OPERATOR_NS, NS]) await create("/api/v1/namespaces", { metadata: { name: ns } });
        await create(`/api/v1/namespaces/${OPERATOR_NS}/serviceaccounts`, { metadata: { name: "controller-manager" } });
        for (const obj of docs(path.join(operator.tools.crds, "rbac"))) {
            await create(`/apis/rbac.authorization.k8s.io/v1/${obj.kind === "ClusterRole" ? "clusterroles" : "clusterrolebindings"}`, obj);
        }
        // What the fleet program makes per environment (fleet/components/environment.ts), with
        // serviceAccount.clusterAdmin (the program installs into this same cluster), and the Secret
        // the fleet file's references name.
        // Staging installs into a cluster of its own, so its account has only the auth-delegator binding.
        for (const [account, roles] of [
            [ENV, ["system:auth-delegator", "cluster-admin"]],
            [STAGING, ["system:auth-delegator"]],
        ] as const) {
            await create(`/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: account } });
            for (const role of roles) {
                await create("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
                    metadata: { name: `${NS}:${account}:${role}` },
                    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
                    subjects: [{ kind: "ServiceAccount", name: account, namespace: NS }],
                });
            }
        }
        await create(`/api/v1/namespaces/${NS}/secrets`, {
            metadata: { name: CREDENTIALS },
            stringData: { passphrase, pgpassword: pg.clientEnv.PGPASSWORD },
        });

        const [agentPort, probePort, programPort] = await freePorts(3);
        const admin = fromYaml(cluster.kubeconfig);
        kubelet = new WorkspaceKubelet({
            kube,
            kubeconfigFor: (token) => toYaml({ ...admin, users: [{ name: admin.users[0].name, user: { token } }] }),
            namespace: NS,
            dir: path.join(work, "kubelet"),
            agent: operator.tools.agent,
            port: agentPort,
            repositories: { [PROJECT_REPO]: `file://${path.join(work, "repo.git")}` },
            // The workspace image's npm cache (fleet/workspace-image/Dockerfile): this machine's, which `npm ci` filled.
            npmCache: spawnSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).stdout.trim(),
            // The image's tools: Node.js >= 22 first (npm install's preinstall refuses older), the CLI,
            // language host and kubernetes provider built here, the dynamic-provider host, the system's.
            path: [path.dirname(process.execPath), tools!.bin, pluginDir, "/usr/local/bin", "/usr/bin", "/bin"],
            // The image's plugins (`pulumi install` installs the packages' plugins unless their folders exist):
            // the kubernetes provider built here, and stubs for aws and random (the stack declares none of their resources).
            plugins: ["kubernetes", "aws", "random"].map((name) => {
                const version = JSON.parse(
                    fs.readFileSync(path.join(REPO, "node_modules", "@pulumi", name, "package.json"), "utf8"),
                ).version;
                return [
                    `resource-${name}-v${version}`,
                    `pulumi-resource-${name}`,
                    name === "kubernetes" ? tools!.kubernetesProvider : "/bin/false",
                ];
            }),
            agentEnv: { [RUN_MARKER]: marker },
        });
        await kubelet.start();
        const managerKubeconfig = path.join(work, "manager.kubeconfig");
        fs.writeFileSync(managerKubeconfig, cluster.kubeconfig, { mode: 0o600 });
        const out = fs.openSync(path.join(work, "manager.log"), "a");
        manager = stopWithThisProcess(
            spawn(
                operator.tools.manager,
                [
                    `--health-probe-bind-address=127.0.0.1:${probePort}`,
                    "--metrics-bind-address=0",
                    `--program-fs-addr=127.0.0.1:${programPort}`,
                    "--zap-log-level=info",
                ],
                {
                    env: {
                        PATH: "/usr/bin:/bin",
                        HOME: path.join(work, "tmp"),
                        KUBECONFIG: managerKubeconfig,
                        WORKSPACE_LOCALHOST: `127.0.0.1:${agentPort}`,
                        POD_NAMESPACE: OPERATOR_NS,
                        POD_SA_NAME: "controller-manager",
                    },
                    stdio: ["ignore", out, out],
                },
            ),
        );
        fs.closeSync(out);
    });

    after(async () => {
        try {
            for (const pid of frozen) {
                try {
                    process.kill(pid, "SIGCONT");
                } catch {
                    // Gone.
                }
            }
        } finally {
            await stopProcess(manager);
            await kubelet?.stop();
            await cluster?.stop();
            await stagingCluster?.stop();
            await pg?.stop();
            if (process.env.E2E_KEEP !== "1") {
                cluster?.removeDir();
                stagingCluster?.removeDir();
                pg?.removeDir();
                if (work) fs.rmSync(work, { recursive: true, force: true });
            } else console.log(`# e2e kept: ${work} ${cluster?.dir ?? ""} ${pg?.dir ?? ""}`);
        }
    });

    const stack = (name: string = ENV) => kube.get<any>(`${STACKS}/${name}`);
    const updates = async () => ((await kube.get<any>(UPDATES))?.items ?? []) as any[];
    const managerLog = () => fs.readFileSync(path.join(work, "manager.log"), "utf8");

    /**
     * The fleet file declaring dev at `commit` (and, with `staging`, staging after it; every
     * credential a reference to the Secret made above), and the Stack's spec the fleet program
     * makes of environment `name`: its own parser and fleet/components/stack-spec.ts.
     */
    function fleetSpec(commit: string, o: { name?: string; staging?: boolean; destroyOnFinalize?: boolean } = {}): Record<string, unknown> {
        const dir = path.join(work, "fleet");
        fs.mkdirSync(dir, { recursive: true });
        fs.copyFileSync(path.join(REPO, "fleet", "Pulumi.yaml"), path.join(dir, "Pulumi.yaml"));
        const environment = (stackName: string) => ({
            stack: stackName,
            namespace: NS,
            source: { git: { repo: PROJECT_REPO, commit } },
            backend: pg.url,
            secretsProvider: "passphrase",
            secrets: {
                passphrase: { name: CREDENTIALS, key: "passphrase" },
                env: { PGPASSWORD: { name: CREDENTIALS, key: "pgpassword" } },
            },
        });
        const environments = {
            [ENV]: { ...environment(ENV), serviceAccount: { clusterAdmin: true }, destroyOnFinalize: o.destroyOnFinalize ?? false },
            ...(o.staging ? { [STAGING]: { ...environment(STAGING), prerequisites: [{ environment: ENV }] } } : {}),
        };
        fs.writeFileSync(path.join(dir, `Pulumi.${FLEET}.yaml`), toYaml({ config: { "nvcf-fleet:environments": environments } }));
        const name = o.name ?? ENV;
        return stackSpec(readFleetFile(dir, FLEET).environments[name], name);
    }

    /** `npm run --silent fleet -- status` on the fleet file, as a person runs it. */
    async function fleetStatus(): Promise<{ code: number; out: string }> {
        const args = ["run", "--silent", "fleet", "--", "status", "--stack", FLEET, "--dir", path.join(work, "fleet")];
        const res = await runToEnd("npm", [...args, "--kubeconfig", path.join(work, "kubeconfig")], {
            cwd: REPO,
            env: { ...process.env, PATH: [path.dirname(process.execPath), process.env.PATH].join(path.delimiter) },
        });
        const out = res.stdout + res.stderr;
        fleetLog.push(`$ npm ${args.join(" ")}\n${out}(exit ${res.code})`);
        return { code: res.code ?? 1, out };
    }
    const fleetLog: string[] = [];

    /** What the Stack says, for a timeout's message. */
    let last = "";
    const seen = () => `${last}\nkubelet: ${kubelet.events.slice(-5).join("; ")}\nmanager: ${managerLog().slice(-1500)}`;

    /** Waits until the Stack's status holds `check`; a pod the stand-in could not start fails at once. */
    async function stackUntil(what: string, check: (s: any) => boolean, ms: number, name: string = ENV): Promise<any> {
        let found: any;
        await until(
            what,
            async () => {
                if (kubelet.error) throw kubelet.error;
                if (manager.exitCode !== null) throw new Error(`the manager exited ${manager.exitCode}: ${managerLog().slice(-3000)}`);
                found = await stack(name);
                // A Stalled workspace is not retried (stack_controller.go): waiting longer shows nothing more.
                const stalled = condition(found, "Stalled");
                if (stalled?.status === "True" && stalled.reason === "WorkspaceFailed")
                    throw new Error(`the Stack is stalled: ${stalled.message}`);
                last = JSON.stringify({ lastUpdate: found?.status?.lastUpdate, conditions: found?.status?.conditions });
                return !!found && check(found);
            },
            ms,
            seen,
        );
        return found;
    }

    /** The Helm release records: `namespace/name status` per release, and the records' names (a new revision is a new record). */
    async function helmReleases(on: Kube = kube): Promise<{ releases: string[]; records: string[] }> {
        const list = await on.get<any>("/api/v1/secrets?labelSelector=owner%3Dhelm");
        const items = (list?.items ?? []).filter((s: any) => s.type === "helm.sh/release.v1");
        return {
            releases: items.map((s: any) => `${s.metadata.namespace}/${s.metadata.labels.name} ${s.metadata.labels.status}`).sort(),
            records: items.map((s: any) => `${s.metadata.namespace}/${s.metadata.name}`).sort(),
        };
    }

    /** No credential in the Stack, its Updates, the manager's log, the agents' logs or the CLIs' output. */
    async function assertNoSecretShows(): Promise<void> {
        const text = [
            JSON.stringify(await stack()),
            JSON.stringify(await updates()),
            managerLog(),
            kubelet.logs(),
            ...(ci?.log ?? []),
            ...(laptop?.log ?? []),
            ...fleetLog,
        ].join("\n");
        assert.ok(!pg.leaks(text), "no PostgreSQL password shows in the Stack, its Updates or any log");
        assert.ok(!text.includes(passphrase), "the passphrase shows in neither the Stack, its Updates nor any log");
    }

    it(
        "a Stack for an environment: the operator runs pulumi up of this program on the PostgreSQL backend; the Stack reports success and the releases exist",
        { timeout: 12 * MIN },
        async () => {
            const spec = {
                ...fleetSpec(commits.initial),
                // Not a fleet setting: the retries' waits, 10 s then 2 s (operator-local-mode.md, Timings).
                retryMaxBackoffDurationSeconds: 2,
            };
            const created = await kube.request("POST", STACKS, {
                apiVersion: "pulumi.com/v1",
                kind: "Stack",
                metadata: { name: ENV, namespace: NS },
                spec,
            });
            assert.equal(created.status, 201, created.text.slice(0, 500));
            const t0 = Date.now();
            const done = await stackUntil(
                "the Stack's first update succeeded",
                (s) => s.status?.lastUpdate?.state === "succeeded" || s.status?.lastUpdate?.state === "failed",
                10 * MIN,
            );
            console.log(`# first update: ${((Date.now() - t0) / 1000).toFixed(0)} s after the Stack was created`);
            // What the pod's disk holds after an update (docs/fleets.md, Workspace size): the agent, the checkout with
            // the node_modules its install made, the CLI's home; npm's cache is the image's, and the plugins are links here.
            const du = spawnSync("du", ["-sk", "--exclude=.npm", kubelet.agent(ENV)!.dir], { encoding: "utf8" });
            console.log(`# workspace disk after the first update: ${(Number(du.stdout.split("\t")[0]) / 1024).toFixed(0)} MiB`);
            assert.equal(done.status.lastUpdate.state, "succeeded", JSON.stringify(done.status.lastUpdate));
            assert.equal(done.status.lastUpdate.lastSuccessfulCommit, commits.initial);
            assert.equal(done.status.lastUpdate.lastAttemptedCommit, commits.initial);
            assert.equal(condition(done, "Ready")?.status, "True", JSON.stringify(done.status.conditions));

            // The run was the operator's: one Update of type up, complete, for this stack.
            const ups = await updates();
            assert.equal(ups.length, 1, ups.map((u) => u.metadata.name).join(", "));
            assert.equal(ups[0].spec.type, "up");
            assert.equal(ups[0].spec.stackName, ENV);
            assert.equal(condition(ups[0], "Complete")?.status, "True");
            assert.equal(condition(ups[0], "Failed")?.status, "False");

            // The state is in the PostgreSQL backend, and the releases it declares are deployed.
            const checkpoint = JSON.parse(await pg.blob(pg.checkpointKey(PROJECT, ENV))) as {
                checkpoint: { stack: string; latest: { resources?: any[] } };
            };
            assert.equal(checkpoint.checkpoint.stack, `organization/${PROJECT}/${ENV}`);
            const declared = (checkpoint.checkpoint.latest.resources ?? []).filter((r) => r.type === "kubernetes:helm.sh/v3:Release");
            assert.ok(declared.length >= 10, `releases in the stack: ${declared.length}`);
            assert.deepEqual(
                (await helmReleases()).releases,
                declared.map((r) => `${r.outputs.namespace}/${r.outputs.name} deployed`).sort(),
                "every release of the stack is deployed, and no other",
            );
            assert.deepEqual(await pg.lockKeys(PROJECT, ENV), [], "no lock once the update ended");

            const status = await fleetStatus();
            assert.equal(status.code, 0, status.out);
            assert.match(status.out, new RegExp(`^${ENV}  succeeded\n  commit   ${commits.initial}\n`, "m"), status.out);
            await assertNoSecretShows();
        },
    );

    it("a new commit: the operator replaces the workspace and updates at it, every release kept", { timeout: 10 * MIN }, async () => {
        const before = {
            pod: (await kube.get<any>(`/api/v1/namespaces/${NS}/pods/${ENV}-workspace-0`))?.metadata.uid,
            helm: await helmReleases(),
        };
        const patched = await kube.request(
            "PATCH",
            `${STACKS}/${ENV}`,
            { spec: { commit: fleetSpec(commits.change).commit } },
            "application/merge-patch+json",
        );
        assert.equal(patched.status, 200, patched.text.slice(0, 300));
        const done = await stackUntil(
            "the Stack's update at the new commit",
            (s) =>
                s.status?.lastUpdate?.lastAttemptedCommit === commits.change && ["succeeded", "failed"].includes(s.status.lastUpdate.state),
            8 * MIN,
        );
        assert.equal(done.status.lastUpdate.state, "succeeded", JSON.stringify(done.status.lastUpdate));
        assert.equal(done.status.lastUpdate.lastSuccessfulCommit, commits.change);
        const pod = await kube.get<any>(`/api/v1/namespaces/${NS}/pods/${ENV}-workspace-0`);
        assert.notEqual(pod?.metadata.uid, before.pod, "the workspace pod was replaced");
        const ups = (await updates()).filter((u) => u.spec.type === "up");
        assert.equal(ups.length, 2, ups.map((u) => u.metadata.name).join(", "));
        assert.ok(ups.every((u) => condition(u, "Complete")?.status === "True" && condition(u, "Failed")?.status === "False"));
        const now = await helmReleases();
        assert.deepEqual(now.releases, before.helm.releases, "the same releases, deployed");
        assert.deepEqual(
            before.helm.records.filter((r) => !now.records.includes(r)),
            [],
            "no release reinstalled: every record kept",
        );
    });

    it("a failing update is reported on the Stack with the program's message, and retried", { timeout: 10 * MIN }, async () => {
        const patched = await kube.request(
            "PATCH",
            `${STACKS}/${ENV}`,
            { spec: { commit: fleetSpec(commits.failing).commit } },
            "application/merge-patch+json",
        );
        assert.equal(patched.status, 200, patched.text.slice(0, 300));
        const failed = await stackUntil(
            "the Stack's failed update",
            (s) => s.status?.lastUpdate?.lastAttemptedCommit === commits.failing && s.status.lastUpdate.state === "failed",
            8 * MIN,
        );
        assert.match(failed.status.lastUpdate.message, /domian/, failed.status.lastUpdate.message);
        assert.match(failed.status.lastUpdate.message, /unknown key \(did you mean "domain"\?\)/);
        assert.equal(failed.status.lastUpdate.lastSuccessfulCommit, commits.change, "the last success stays the previous commit");
        assert.notEqual(condition(failed, "Ready")?.status, "True");
        // Retried: a second Update at the same commit, failed too, and the failures counted.
        const retried = await stackUntil(
            "the failed update retried",
            (s) => (s.status?.lastUpdate?.failures ?? 0) >= 1 && s.status.lastUpdate.state === "failed",
            3 * MIN,
        );
        const failedUps = (await updates()).filter((u) => condition(u, "Failed")?.status === "True");
        assert.ok(failedUps.length >= 2, `failed Updates: ${failedUps.map((u) => u.metadata.name).join(", ")}`);
        assert.match(retried.status.lastUpdate.message, /unknown key/);
        assert.ok(
            ["Reconciling", "Stalled"].some((type) => condition(retried, type)?.status === "True"),
            `retrying or stalled: ${JSON.stringify(retried.status.conditions)}`,
        );
        assert.deepEqual(await pg.lockKeys(PROJECT, ENV), [], "a failed update leaves no lock");
        // The person's view: failed (and retrying) at the commit, unless a retry runs right now.
        const status = await fleetStatus();
        const state = new RegExp(
            `^${ENV}  (failed, retrying|failed|stalled \\(UpdateFailed\\)|running)\n  commit   ${commits.failing}$`,
            "m",
        );
        assert.match(status.out, state, status.out);
        assert.equal(status.code, /^dev {2}running$/m.test(status.out) ? 0 : 1, status.out);
    });

    it(
        "a laptop's pulumi up while the operator's update holds the lock is refused; the operator's update then succeeds",
        { timeout: 10 * MIN },
        async () => {
            const patched = await kube.request(
                "PATCH",
                `${STACKS}/${ENV}`,
                { spec: { commit: fleetSpec(commits.fix).commit } },
                "application/merge-patch+json",
            );
            assert.equal(patched.status, 200, patched.text.slice(0, 300));
            // The fix's workspace serves (the failing commit's agent, and any run of it, stopped first), then its update takes the lock.
            let keys: string[] = [];
            await until(
                "the operator's update at the fix holds the lock",
                async () => {
                    if (kubelet.error) throw kubelet.error;
                    if (kubelet.agent(ENV)?.revision !== commits.fix) return false;
                    keys = await pg.lockKeys(PROJECT, ENV);
                    return keys.length > 0;
                },
                6 * MIN,
                seen,
            );
            // The agents keep serving; the runs under them stop.
            const agents = kubelet.agentPids;
            frozen = freezeRun(marker).filter((pid) => !agents.includes(pid));
            for (const pid of agents) process.kill(pid, "SIGCONT");
            try {
                assert.equal(keys.length, 1, keys.join(", "));
                const lock = JSON.parse(await pg.blob(keys[0])) as { pid: number; hostname: string };
                assert.ok(frozen.includes(lock.pid), `the lock's holder (pid ${lock.pid}) is a process of the operator's workspace`);
                assert.equal(fs.realpathSync(`/proc/${lock.pid}/cwd`), kubelet.agent(ENV)!.checkout, "it runs in the fix's checkout");
                const refused = await laptop.run(["up", "--yes", "--skip-preview"], { allowFailure: true });
                const said = refused.stdout + refused.stderr;
                assert.notEqual(refused.code, 0, "the laptop's up is refused");
                assert.match(said, LOCKED_BY_ONE);
                assert.match(said.split("\n").find((l) => l.includes(`/${keys[0]}`)) ?? "", new RegExp(`\\(pid ${lock.pid}\\)`), said);
                assert.deepEqual(await pg.lockKeys(PROJECT, ENV), keys, "the laptop left no lock and removed none");
            } finally {
                for (const pid of frozen) {
                    try {
                        process.kill(pid, "SIGCONT");
                    } catch {
                        // Gone.
                    }
                }
                frozen = [];
            }
            const done = await stackUntil(
                "the operator's update at the fix",
                (s) =>
                    s.status?.lastUpdate?.lastAttemptedCommit === commits.fix &&
                    ["succeeded", "failed"].includes(s.status.lastUpdate.state),
                6 * MIN,
            );
            assert.equal(done.status.lastUpdate.state, "succeeded", JSON.stringify(done.status.lastUpdate));
            assert.equal(done.status.lastUpdate.lastSuccessfulCommit, commits.fix);
            assert.equal(condition(done, "Ready")?.status, "True", JSON.stringify(done.status.conditions));
            assert.notEqual(condition(done, "Stalled")?.status, "True");
            assert.deepEqual(await pg.lockKeys(PROJECT, ENV), [], "no lock left");
            await assertNoSecretShows();
        },
    );
    it(
        "two environments with a prerequisite: staging waits, with no workspace, until dev's update succeeds, then runs on its own cluster",
        { timeout: 10 * MIN },
        async () => {
            const devBefore = new Set((await updates()).filter((u) => u.spec.stackName === ENV).map((u) => u.metadata.name));
            // A reconciliation request makes dev's last success out of date: staging must wait for dev's next update.
            const request = `prerequisite-${Date.now()}`;
            const annotated = await kube.request(
                "PATCH",
                `${STACKS}/${ENV}`,
                { metadata: { annotations: { "pulumi.com/reconciliation-request": request } } },
                "application/merge-patch+json",
            );
            assert.equal(annotated.status, 200, annotated.text.slice(0, 300));
            const created = await kube.request("POST", STACKS, {
                apiVersion: "pulumi.com/v1",
                kind: "Stack",
                metadata: { name: STAGING, namespace: NS },
                spec: { ...fleetSpec(commits.fix, { name: STAGING, staging: true }), retryMaxBackoffDurationSeconds: 2 },
            });
            assert.equal(created.status, 201, created.text.slice(0, 500));
            const waiting = await stackUntil(
                "staging waits for its prerequisite",
                (s) => condition(s, "Reconciling")?.reason === "PrerequisiteNotSatisfied",
                2 * MIN,
                STAGING,
            );
            assert.match(condition(waiting, "Reconciling").message, /prerequisite not satisfied for "dev"/);
            const devNow = await stack(ENV);
            assert.notEqual(devNow.status?.lastUpdate?.reconcileRequest, request, "dev's update for the request has not ended yet");
            assert.equal(await kube.get(`${WORKSPACES}/${STAGING}`), undefined, "staging has no workspace while it waits");

            const dev = await stackUntil(
                "dev's update for the request",
                (s) => s.status?.lastUpdate?.reconcileRequest === request && ["succeeded", "failed"].includes(s.status.lastUpdate.state),
                6 * MIN,
            );
            assert.equal(dev.status.lastUpdate.state, "succeeded", JSON.stringify(dev.status.lastUpdate));
            const done = await stackUntil(
                "staging's first update",
                (s) => ["succeeded", "failed"].includes(s.status?.lastUpdate?.state),
                8 * MIN,
                STAGING,
            );
            assert.equal(done.status.lastUpdate.state, "succeeded", JSON.stringify(done.status.lastUpdate));

            // In order: dev's update ended before staging's was created.
            const all = await updates();
            const devUpdate = all.find((u) => u.spec.stackName === ENV && !devBefore.has(u.metadata.name));
            const stagingUpdates = all.filter((u) => u.spec.stackName === STAGING);
            assert.ok(devUpdate?.status?.endTime, `dev's new Update: ${JSON.stringify(devUpdate?.status)}`);
            assert.equal(stagingUpdates.length, 1, stagingUpdates.map((u) => u.metadata.name).join(", "));
            assert.ok(
                Date.parse(stagingUpdates[0].metadata.creationTimestamp) >= Date.parse(devUpdate.status.endTime),
                `staging's Update (${stagingUpdates[0].metadata.creationTimestamp}) after dev's ended (${devUpdate.status.endTime})`,
            );
            // Staging's releases are on its own cluster, all deployed; dev's cluster holds only dev's.
            const stagingReleases = (await helmReleases(stagingKube)).releases;
            assert.ok(stagingReleases.length >= 10, stagingReleases.join(", "));
            assert.ok(
                stagingReleases.every((r) => r.endsWith(" deployed")),
                stagingReleases.join(", "),
            );
            assert.deepEqual((await helmReleases()).releases, stagingReleases, "the same releases on each environment's cluster");
        },
    );

    it("deleting a Stack with the default destroyOnFinalize (false) leaves its releases and its state", { timeout: 5 * MIN }, async () => {
        const before = await helmReleases(stagingKube);
        const deleted = await kube.request("DELETE", `${STACKS}/${STAGING}`);
        assert.equal(deleted.status, 200, deleted.text.slice(0, 300));
        await until("the staging Stack is gone", async () => (await stack(STAGING)) === undefined, 2 * MIN, seen);
        assert.deepEqual(
            (await updates()).filter((u) => u.spec.stackName === STAGING && u.spec.type === "destroy"),
            [],
            "no destroy was run",
        );
        assert.deepEqual(await helmReleases(stagingKube), before, "every release and record kept");
        const checkpoint = JSON.parse(await pg.blob(pg.checkpointKey(PROJECT, STAGING))) as {
            checkpoint: { latest: { resources?: any[] } };
        };
        assert.ok(
            (checkpoint.checkpoint.latest.resources ?? []).some((r) => r.type === "kubernetes:helm.sh/v3:Release"),
            "the stack's state still holds its releases",
        );
    });

    it(
        "deleting a Stack with destroyOnFinalize destroys the environment from its program, and nothing is left",
        { timeout: 12 * MIN },
        async () => {
            const patched = await kube.request(
                "PATCH",
                `${STACKS}/${ENV}`,
                { spec: fleetSpec(commits.fix, { destroyOnFinalize: true }) },
                "application/merge-patch+json",
            );
            assert.equal(patched.status, 200, patched.text.slice(0, 300));
            const generation = patched.body.metadata.generation;
            assert.equal(patched.body.spec.destroyOnFinalize, true);
            assert.equal(patched.body.spec.runProgram, true, "the fleet runs the program for the destroy");
            const synced = await stackUntil(
                "dev's update at the new spec",
                (s) => s.status?.lastUpdate?.generation === generation && ["succeeded", "failed"].includes(s.status.lastUpdate.state),
                6 * MIN,
            );
            assert.equal(synced.status.lastUpdate.state, "succeeded", JSON.stringify(synced.status.lastUpdate));

            const deleted = await kube.request("DELETE", `${STACKS}/${ENV}`);
            assert.equal(deleted.status, 200, deleted.text.slice(0, 300));
            await finalizingNamespaces(kube, () =>
                until(
                    "the dev Stack destroyed and gone",
                    async () => {
                        if (kubelet.error) throw kubelet.error;
                        const s = await stack(ENV);
                        if (s) last = JSON.stringify({ lastUpdate: s.status?.lastUpdate, conditions: s.status?.conditions });
                        return s === undefined;
                    },
                    10 * MIN,
                    seen,
                ),
            );
            const destroys = (await updates()).filter((u) => u.spec.stackName === ENV && u.spec.type === "destroy");
            assert.ok(
                destroys.some((u) => condition(u, "Complete")?.status === "True" && condition(u, "Failed")?.status === "False"),
                `a destroy Update completed: ${JSON.stringify(destroys.map((u) => u.status?.conditions))}`,
            );
            assert.deepEqual((await helmReleases()).releases, [], "no release left on dev's cluster");
            const checkpoint = JSON.parse(await pg.blob(pg.checkpointKey(PROJECT, ENV))) as {
                checkpoint: { latest: { resources?: any[] } };
            };
            assert.deepEqual(checkpoint.checkpoint.latest.resources ?? [], [], "the stack's state is empty");
            assert.deepEqual(await pg.lockKeys(PROJECT, ENV), [], "no lock left");
            assert.ok((await helmReleases(stagingKube)).releases.length >= 10, "staging's releases are untouched");
            await assertNoSecretShows();
        },
    );
});
