import assert from "node:assert/strict";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { functionQueuesEmpty, parseQueueRef } from "../scripts/upgrade/function-queues";
import { QUEUE_DETAILS, type QueueDto, type QueuesResponse } from "../lib/nvcf-api/contract";
import { JSZ_PAGE, type JszAccount, type JszAnswer, type JszStream } from "../lib/nats/contract";
import { natsDrained } from "../scripts/upgrade/nats-drain";
import { openBaoClusterId, openBaoMembersChecked } from "../scripts/upgrade/openbao";
import { kubeProgressStore, resumeAt, withStage } from "../scripts/upgrade/progress";
import { jobsSucceeded } from "../scripts/upgrade/checks";
import { RELEASE_NAMES } from "../components/catalog/control-plane";
import { parseSettings } from "../config/settings";
import { devRaw } from "./support/raw-config";
import { stream, WorldKube } from "./support/upgrade-world";
import { healthAnswer } from "./support/openbao-answers";

/** A NATS pod as the chart runs it: a `nats` container whose monitoring port is named `monitor`. */
function natsPod(kube: WorldKube, name: string, port = 8222): void {
    kube.api.put(`/api/v1/namespaces/nats-system/pods/${name}`, {
        metadata: { name },
        spec: {
            containers: [
                {
                    name: "nats",
                    ports: [
                        { name: "client", containerPort: 4222 },
                        { name: "monitor", containerPort: port },
                    ],
                },
                { name: "reloader" },
            ],
        },
    });
}

/**
 * `/jsz?accounts=true&streams=true&config=true` as nats-server answers it (JSInfo in
 * server/monitor.go): the accounts paged by offset and limit, `total` always, and
 * `account_details` left out of a page that holds none.
 */
function jsz(accounts: readonly Omit<JszAccount, "id">[]) {
    return (_path: string, q: URLSearchParams) => {
        const offset = Number(q.get("offset") ?? 0);
        const limit = Number(q.get("limit") ?? JSZ_PAGE);
        assert.equal(q.get("accounts"), "true");
        assert.equal(q.get("streams"), "true");
        assert.equal(q.get("config"), "true");
        const page: JszAccount[] = accounts.slice(offset, offset + limit).map((a) => ({ id: a.name, ...a }));
        const body: JszAnswer = { server_id: "N1", total: accounts.length, ...(page.length > 0 ? { account_details: page } : {}) };
        return { status: 200, body, text: JSON.stringify(body) };
    };
}

describe("the NATS drain gate (/jsz of every NATS pod, through the API server's pod proxy)", () => {
    test("passes when every single-replica memory stream on every server is present and empty; file and replicated streams do not count", async () => {
        const kube = new WorldKube();
        natsPod(kube, "nats-0");
        natsPod(kube, "nats-1", 18222);
        kube.api.put("/api/v1/namespaces/nats-system/pods/nats-auth-callout-0", {
            metadata: { name: "nats-auth-callout-0" },
            spec: { containers: [{ name: "callout" }] },
        });
        kube.proxy(
            /pods\/nats-0:8222\/proxy\/jsz$/,
            jsz([{ name: "APP", stream_detail: [stream("requests", 0), stream("archive", 12, "file")] }]),
        );
        kube.proxy(
            /pods\/nats-1:18222\/proxy\/jsz$/,
            jsz([{ name: "APP", stream_detail: [stream("results", 0), stream("shared", 7, "memory", 3)] }, { name: "SYS" }]),
        );
        const r = await natsDrained(kube);
        assert.equal(r.ok, true, r.detail);
        assert.match(r.detail, /2 single-replica memory streams are present and empty on 2 NATS servers \(APP\/requests, APP\/results\)/);
        assert.ok(!kube.calls.some((c) => c.includes("nats-auth-callout-0")), "a pod without a nats container is not asked");
    });

    test("stops naming each stream with messages and its count", async () => {
        const kube = new WorldKube();
        natsPod(kube, "nats-0");
        kube.proxy(
            /pods\/nats-0:8222\/proxy\/jsz$/,
            jsz([{ name: "APP", stream_detail: [stream("requests", 3), stream("results", 1), stream("idle", 0)] }]),
        );
        const r = await natsDrained(kube);
        assert.equal(r.ok, false);
        assert.equal(r.detail, "not drained: APP/requests on nats-0: 3 messages, APP/results on nats-0: 1 message");
        assert.match(r.fix, /keep new requests and task submissions paused and NATS running/);
        assert.match(r.fix, /kubectl -n nats-system port-forward pod\/nats-0 18222:8222/);
    });

    test("reads every page: a stream with messages on the second page of accounts stops it", async () => {
        const kube = new WorldKube();
        natsPod(kube, "nats-0");
        const accounts = [
            { name: "A1", stream_detail: [stream("s1", 0)] },
            { name: "A2", stream_detail: [stream("s2", 0)] },
            { name: "A3", stream_detail: [stream("s3", 4)] },
        ];
        kube.proxy(/pods\/nats-0:8222\/proxy\/jsz$/, jsz(accounts));
        const r = await natsDrained(kube, 2);
        assert.equal(r.detail, "not drained: A3/s3 on nats-0: 4 messages");
        assert.deepEqual(
            kube.calls.filter((c) => c.includes("/jsz")).map((c) => new URLSearchParams(c.split("?")[1]).get("offset")),
            ["0", "2"],
        );
    });

    test("accounts an exact multiple of the page: the page past the end has no account_details, and that is the end", async () => {
        const kube = new WorldKube();
        natsPod(kube, "nats-0");
        const accounts = [
            { name: "A1", stream_detail: [stream("s1", 0)] },
            { name: "A2", stream_detail: [stream("s2", 0)] },
        ];
        kube.proxy(/pods\/nats-0:8222\/proxy\/jsz$/, jsz(accounts));
        const r = await natsDrained(kube, 2);
        assert.equal(r.ok, true, r.detail);
        assert.match(r.detail, /2 single-replica memory streams are present and empty/);
        // Only the one page: `total` says there is no more.
        assert.equal(kube.calls.filter((c) => c.includes("/jsz")).length, 1);
    });

    test("no single-replica memory stream anywhere blocks: a missing stream is not a drained one", async () => {
        const kube = new WorldKube();
        natsPod(kube, "nats-0");
        kube.proxy(/pods\/nats-0:8222\/proxy\/jsz$/, jsz([{ name: "APP", stream_detail: [stream("archive", 0, "file")] }]));
        const r = await natsDrained(kube);
        assert.equal(r.ok, false);
        assert.match(r.detail, /no single-replica memory stream on nats-0: a missing stream blocks the rollout/);
    });

    test("a failed read, an answer without account_details, a stream without its config, or no NATS pod at all blocks", async () => {
        const cases: [string, ((kube: WorldKube) => void) | undefined, RegExp][] = [
            [
                "failed read",
                (k) => k.proxy(/jsz$/, () => ({ status: 503, body: undefined, text: "no endpoints available for service" })),
                /could not read NATS's streams: nats-0: \/jsz answered HTTP 503: no endpoints/,
            ],
            [
                "not an answer of /jsz",
                (k) => k.proxy(/jsz$/, () => ({ status: 200, body: { server_id: "N" }, text: "{}" })),
                /answered without account_details or total/,
            ],
            [
                "JetStream off",
                (k) => k.proxy(/jsz$/, () => ({ status: 200, body: { server_id: "N", disabled: true, total: 0 }, text: "{}" })),
                /JetStream is disabled on this server/,
            ],
            ["no JetStream account", (k) => k.proxy(/jsz$/, jsz([])), /no single-replica memory stream on nats-0/],
            [
                "no config",
                // As nats-server details a stream asked without config=true: `config` is left out.
                (k) =>
                    k.proxy(
                        /jsz$/,
                        jsz([{ name: "APP", stream_detail: [{ name: "s", state: { messages: 0, bytes: 0 } } as unknown as JszStream] }]),
                    ),
                /stream APP\/s: no config.storage or state.messages/,
            ],
            ["no pod", undefined, /no NATS pod \(a pod with a nats container\) in nats-system/],
        ];
        for (const [what, setup, expected] of cases) {
            const kube = new WorldKube();
            if (setup) {
                natsPod(kube, "nats-0");
                setup(kube);
            }
            const r = await natsDrained(kube);
            assert.equal(r.ok, false, what);
            assert.match(r.detail, expected, what);
        }
    });
});

/** OpenBao's `GET /v1/sys/health` per member, as documented (with the query asking 200 for every state). */
interface Member {
    sealed?: boolean;
    standby?: boolean;
    clusterId?: string;
    initialized?: boolean;
    /** Its pod proxy answers 503 (no endpoint behind it). */
    down?: boolean;
}

function openbao(kube: WorldKube, members: Member[], sts = { replicas: 3, updated: 3 }, port = 8200) {
    members.forEach((_m, i) =>
        kube.api.put(`/api/v1/namespaces/vault-system/pods/openbao-server-${i}`, {
            metadata: { name: `openbao-server-${i}` },
            spec: { containers: [{ name: "openbao", ports: [{ name: "http", containerPort: port }] }] },
        }),
    );
    kube.api.put("/api/v1/namespaces/vault-system/pods/openbao-server-agent-injector-abc", {
        metadata: { name: "openbao-server-agent-injector-abc" },
    });
    kube.proxy(new RegExp(`pods/openbao-server-(\\d+):${port}/proxy/v1/sys/health$`), (path, q) => {
        assert.equal(q.get("sealedcode"), "200");
        const m = members[Number(/openbao-server-(\d+)/.exec(path)![1])];
        if (m.down) return undefined;
        const body = healthAnswer({
            initialized: m.initialized ?? true,
            sealed: m.sealed ?? false,
            standby: m.standby ?? true,
            cluster_name: "vault-cluster-1",
            cluster_id: m.clusterId ?? "cid-1",
        });
        return { status: 200, body, text: JSON.stringify(body) };
    });
    kube.api.put("/apis/apps/v1/namespaces/vault-system/statefulsets/openbao-server", {
        metadata: { name: "openbao-server", generation: 2 },
        spec: { replicas: sts.replicas, updateStrategy: { type: "OnDelete" } },
        status: {
            replicas: sts.replicas,
            updatedReplicas: sts.updated,
            currentRevision: "old",
            updateRevision: "new",
            observedGeneration: 2,
        },
    });
}

describe("OpenBao's members between the stage's steps (sys/health of each member, the StatefulSet's updatedReplicas)", () => {
    const settings = parseSettings(devRaw(), { releaseNames: RELEASE_NAMES });
    const healthy = (): Member[] => [{ standby: false }, {}, {}];

    test("passes with every member unsealed, one active, the original cluster ID, every member on the new template", async () => {
        const kube = new WorldKube();
        openbao(kube, healthy());
        assert.equal(await openBaoClusterId(kube, settings), "cid-1");
        const results = await openBaoMembersChecked(kube, settings, "cid-1");
        assert.deepEqual(
            results.map((r) => [r.name, r.ok, r.detail]),
            [
                ["openbao-members", true, "3 members unsealed, openbao-server-0 active, cluster ID cid-1"],
                ["openbao-rollout", true, "every member runs the new template (3/3 updated)"],
            ],
        );
    });

    test("each member is asked on the port its container names http", async () => {
        const kube = new WorldKube();
        openbao(kube, healthy(), { replicas: 3, updated: 3 }, 18200);
        const [m] = await openBaoMembersChecked(kube, settings, "cid-1");
        assert.equal(m.ok, true, m.detail);
    });

    test("a sealed member, another cluster ID, or no active member stops it", async () => {
        const cases: [Member[], RegExp][] = [
            [[{ standby: false }, { sealed: true }, {}], /openbao-server-1 is sealed/],
            [[{ standby: false }, {}, { clusterId: "cid-2" }], /openbao-server-2 reports cluster ID cid-2, not the original cid-1/],
            [[{}, {}, {}], /0 active members \(none\), not one/],
            [[{ standby: false }, { initialized: false }, {}], /openbao-server-1 is not initialised/],
            [[{ standby: false }, {}, { down: true }], /openbao-server-2: GET \/v1\/sys\/health.*503/],
        ];
        for (const [members, expected] of cases) {
            const kube = new WorldKube();
            openbao(kube, members);
            const [m] = await openBaoMembersChecked(kube, settings, "cid-1");
            assert.equal(m.ok, false);
            assert.match(m.detail, expected);
            assert.match(m.fix, /never go on to the next member while one is sealed/);
        }
    });

    test("OnDelete members still on the old template (updatedReplicas below replicas) stop it, with the runbook's order of replacement", async () => {
        const kube = new WorldKube();
        openbao(kube, healthy(), { replicas: 3, updated: 1 });
        const [, rollout] = await openBaoMembersChecked(kube, settings, "cid-1");
        assert.equal(rollout.ok, false);
        assert.match(rollout.detail, /1\/3 members run the new template; its update strategy is OnDelete, so Helm replaced none/);
        assert.match(rollout.fix, /standbys first.*the active one last after a step-down/);
    });

    test("members that do not agree on a cluster ID give no baseline", async () => {
        const kube = new WorldKube();
        openbao(kube, [{ standby: false }, { clusterId: "other" }, {}]);
        assert.equal(await openBaoClusterId(kube, settings), undefined);
    });
});

describe("the function queues through the NVCF API (GET /v2/nvcf/queues/functions/{id}[/versions/{id}])", () => {
    // Function and version ids are UUIDs: the API's path variables are of type UUID.
    const FN1 = "0b6e6a3c-5b1f-4e0a-9a43-0c7f3e5d1a01";
    const FN2 = "4f1d2e3c-7a8b-4c9d-8e0f-1a2b3c4d5e02";
    const MISSING = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b03";
    const V1 = "11111111-2222-4333-8444-555555555501";
    const V2 = "11111111-2222-4333-8444-555555555502";
    const V9 = "11111111-2222-4333-8444-555555555509";
    /** Queue depths by `<function>/<version>`; a version set to undefined answers the queue without its depth (malformed). */
    const queues = new Map<string, number | undefined>();
    const seen: string[] = [];
    let server: http.Server;
    let url = "";
    before(async () => {
        // As nvcf-core answers: GetQueuesResponse { functionId, queues: QueueDto[] }, queueDepth always present.
        server = http.createServer((req, res) => {
            seen.push(`${req.headers.authorization} ${req.headers.host} ${req.url}`);
            if (req.headers.authorization !== "Bearer nvapi-queue-key") {
                res.writeHead(401, { "Content-Type": "application/json" }).end('{"detail":"unauthorized"}');
                return;
            }
            const m = /^\/v2\/nvcf\/queues\/functions\/([^/]+)(?:\/versions\/([^/]+))?$/.exec(req.url ?? "");
            if (!m || m[1] === MISSING) {
                res.writeHead(404, { "Content-Type": "application/json" }).end('{"detail":"Function not found"}');
                return;
            }
            const versions = [...queues.keys()].filter((k) => k.startsWith(`${m[1]}/`) && (!m[2] || k === `${m[1]}/${m[2]}`));
            const queuesOut = versions.map((k) => {
                const dto: QueueDto = { functionVersionId: k.split("/")[1], functionName: "echo", functionStatus: "ACTIVE", queueDepth: 0 };
                const depth = queues.get(k);
                if (depth === undefined) {
                    const { queueDepth: _dropped, ...malformed } = dto;
                    return malformed;
                }
                return { ...dto, queueDepth: depth };
            });
            const body: Omit<QueuesResponse, "queues"> & { queues: Partial<QueueDto>[] } = { functionId: m[1], queues: queuesOut };
            const text = JSON.stringify(body);
            res.writeHead(200, { "Content-Type": "application/json" }).end(text);
        });
        await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
        url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((r) => server.close(() => r())));

    test("every named queue at depth 0 passes; a queue with requests stops it, naming function, version and depth", async () => {
        queues.clear();
        queues.set(`${FN1}/${V1}`, 0).set(`${FN1}/${V2}`, 0).set(`${FN2}/${V9}`, 4);
        const access = { baseUrl: url, hostHeader: "api.nvcf.test", apiKey: "nvapi-queue-key" };
        assert.equal((await functionQueuesEmpty(access, [parseQueueRef(FN1)!])).ok, true);
        const r = await functionQueuesEmpty(access, [parseQueueRef(`${FN1}:${V1}`)!, parseQueueRef(`${FN2}:${V9}`)!]);
        assert.equal(r.ok, false);
        assert.equal(r.detail, `not empty: ${FN2}/${V9}: 4`);
        const asked = QUEUE_DETAILS.path.replace("{functionId}", FN2).replace("{versionId}", V9);
        assert.ok(seen.includes(`Bearer nvapi-queue-key api.nvcf.test ${asked}`));
    });

    test("a queue answered without its depth blocks: it is never read as empty", async () => {
        queues.clear();
        queues.set(`${FN1}/${V1}`, undefined);
        const r = await functionQueuesEmpty({ baseUrl: url, apiKey: "nvapi-queue-key" }, [parseQueueRef(FN1)!]);
        assert.equal(r.ok, false);
        assert.match(r.detail, new RegExp(`the queue of ${FN1}/${V1} answered without a queueDepth`));
    });

    test("a missing answer or a refused key blocks, and the key is never in the message", async () => {
        const missing = await functionQueuesEmpty({ baseUrl: url, apiKey: "nvapi-queue-key" }, [parseQueueRef(MISSING)!]);
        assert.equal(missing.ok, false);
        assert.match(missing.detail, new RegExp(`the queue of ${MISSING} answered HTTP 404`));
        const refused = await functionQueuesEmpty({ baseUrl: url, apiKey: "nvapi-wrong-key" }, [parseQueueRef(FN1)!]);
        assert.match(refused.detail, /HTTP 401 \(the key needs the queue_details scope\)/);
        assert.ok(!refused.detail.includes("nvapi-wrong-key"));
        const unreachable = await functionQueuesEmpty({ baseUrl: "http://127.0.0.1:1", apiKey: "k", timeoutMs: 2000 }, [
            parseQueueRef(FN1)!,
        ]);
        assert.match(unreachable.detail, /could not be read/);
    });

    test("a queue is named by UUIDs, as the API's path variables are", () => {
        assert.deepEqual(parseQueueRef(`${FN1}:${V2}`), { functionId: FN1, versionId: V2 });
        for (const bad of ["fn 1", "fn-1", `${FN1}:v-1`, `${FN1}:`, ""]) assert.equal(parseQueueRef(bad), undefined, bad);
    });
});

describe("migration Jobs and the progress record", () => {
    const job = (ns: string, name: string, status: object) =>
        [`/apis/batch/v1/namespaces/${ns}/jobs/${name}`, { metadata: { name, namespace: ns }, status }] as const;
    const cluster = (kube: WorldKube) => ({ kube, target: { cluster: "control plane", preflight: {}, releases: [], extrasIn: [] } });

    test("every Job succeeded passes; a failed one names its log command; a running one is waited for", async () => {
        const kube = new WorldKube();
        kube.api.put(
            ...job("cassandra-system", "cassandra-migrations", { succeeded: 1, conditions: [{ type: "Complete", status: "True" }] }),
        );
        assert.equal((await jobsSucceeded(cluster(kube), ["cassandra-system", "vault-system"])).ok, true);
        kube.api.put(...job("vault-system", "openbao-server-migrations", { active: 1 }));
        assert.match(
            (await jobsSucceeded(cluster(kube), ["cassandra-system", "vault-system"])).detail,
            /not finished: vault-system\/openbao-server-migrations/,
        );
        kube.api.put(
            ...job("cassandra-system", "cassandra-migrations", {
                failed: 1,
                conditions: [{ type: "Failed", status: "True", message: "BackoffLimitExceeded" }],
            }),
        );
        const failed = await jobsSucceeded(cluster(kube), ["cassandra-system"]);
        assert.equal(failed.detail, "failed: cassandra-system/cassandra-migrations (BackoffLimitExceeded)");
        assert.match(failed.fix, /kubectl -n cassandra-system logs job\/cassandra-migrations/);
    });

    test("the record round-trips through its ConfigMap, and resumes at the first stage that has not passed", async () => {
        const kube = new WorldKube();
        const store = kubeProgressStore(kube);
        assert.equal(await store.read(), undefined);
        let p = { from: "1.0.0", to: "1.1.0", startedAt: "t0", stages: {} };
        assert.equal(resumeAt(p), "preflight");
        p = withStage(withStage(p, "preflight", { state: "passed", at: "t1" }), "compute-planes", {
            state: "failed",
            at: "t2",
            detail: "x",
        });
        await store.write(p);
        await store.write(withStage(p, "compute-planes", { state: "passed", at: "t3" }));
        const back = await store.read();
        assert.equal(resumeAt(back), "drain");
        assert.deepEqual(back?.stages["compute-planes"], { state: "passed", at: "t3" });
        assert.ok(
            kube.calls.includes("POST /api/v1/namespaces/nvcf/configmaps") &&
                kube.calls.includes("PUT /api/v1/namespaces/nvcf/configmaps/nvcf-upgrade-progress"),
        );
    });
});
