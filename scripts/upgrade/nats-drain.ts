/**
 * The runbook's drain gate on NATS: before anything restarts NATS, every single-replica memory
 * stream on every NATS server must be present and empty. Each NATS pod's monitoring endpoint
 * (`/jsz` with accounts, streams and their config) is read through the API server's pod proxy,
 * every page of it.
 */
import type { CheckResult } from "../../lib/health/checks";
import type { Kube } from "../../lib/kubernetes/client";
import { monitorPath, natsServers, type NatsServerPod } from "../../lib/nats/servers";
import { excerpt } from "../../lib/http/client";
import { JSZ_PAGE, JSZ_STORAGE, NATS } from "../../lib/nats/contract";

interface Stream {
    readonly pod: string;
    readonly account: string;
    readonly name: string;
    readonly messages: number;
}

/** Every single-replica memory stream of one server, over all pages; throws on a failed read or a malformed answer. */
async function memoryStreams(kube: Kube, pod: NatsServerPod, pageSize: number): Promise<Stream[]> {
    const streams: Stream[] = [];
    for (let offset = 0; ; offset += pageSize) {
        const query = `accounts=true&streams=true&config=true&offset=${offset}&limit=${pageSize}`;
        const res = await kube.request("GET", monitorPath(pod, `jsz?${query}`));
        if (res.status !== 200) throw new Error(`${pod.name}: /jsz answered HTTP ${res.status}: ${excerpt(res.text, 160) || "no body"}`);
        if (res.body?.disabled === true) throw new Error(`${pod.name}: /jsz says JetStream is disabled on this server`);
        const total: unknown = res.body?.total;
        // account_details is left out of a page that holds no account: past the end, or none at all.
        const accounts: unknown = res.body?.account_details ?? (typeof total === "number" && offset >= total ? [] : undefined);
        if (!Array.isArray(accounts)) throw new Error(`${pod.name}: /jsz answered without account_details or total (is JetStream on?)`);
        for (const account of accounts as { name?: string; stream_detail?: unknown }[]) {
            const details = account.stream_detail ?? [];
            if (!Array.isArray(details)) throw new Error(`${pod.name}: account ${account.name}: stream_detail is not a list`);
            for (const s of details as {
                name?: string;
                config?: { storage?: unknown; num_replicas?: unknown };
                state?: { messages?: unknown };
            }[]) {
                if (typeof s.config?.storage !== "string" || typeof s.state?.messages !== "number") {
                    throw new Error(`${pod.name}: stream ${account.name}/${s.name}: no config.storage or state.messages in the answer`);
                }
                const replicas = typeof s.config.num_replicas === "number" ? s.config.num_replicas : 1;
                if (s.config.storage === JSZ_STORAGE.memory && replicas === 1) {
                    streams.push({ pod: pod.name, account: account.name ?? "?", name: s.name ?? "?", messages: s.state.messages });
                }
            }
        }
        if (typeof total === "number" ? offset + accounts.length >= total : accounts.length < pageSize) return streams;
    }
}

/** The drain gate: passes only when single-replica memory streams exist and every one is empty. */
export async function natsDrained(kube: Kube, pageSize: number = JSZ_PAGE): Promise<CheckResult> {
    const name = "nats-drained";
    const inspect = (pod: string, port: number) =>
        `kubectl -n ${NATS.namespace} port-forward pod/${pod} 18222:${port} & curl -s 'http://127.0.0.1:18222/jsz?accounts=true&streams=true&config=true'`;
    const servers = await natsServers(kube);
    if (servers.length === 0) {
        return {
            name,
            ok: false,
            detail: `no NATS pod (a pod with a ${NATS.container} container) in ${NATS.namespace}`,
            fix: `kubectl -n ${NATS.namespace} get pods; NATS must run to be checked before it is restarted`,
        };
    }
    const streams: Stream[] = [];
    for (const server of servers) {
        try {
            streams.push(...(await memoryStreams(kube, server, pageSize)));
        } catch (error) {
            return {
                name,
                ok: false,
                detail: `could not read NATS's streams: ${(error as Error).message}`,
                fix: `a failed read blocks the rollout; check the pod (${inspect(server.name, server.port)})`,
            };
        }
    }
    const first = servers[0];
    if (streams.length === 0) {
        return {
            name,
            ok: false,
            detail: `no single-replica memory stream on ${servers.map((s) => s.name).join(", ")}: a missing stream blocks the rollout`,
            fix: `check that NVCF's streams exist (${inspect(first.name, first.port)})`,
        };
    }
    const full = streams.filter((s) => s.messages !== 0);
    if (full.length > 0) {
        return {
            name,
            ok: false,
            detail: `not drained: ${full.map((s) => `${s.account}/${s.name} on ${s.pod}: ${s.messages} message${s.messages === 1 ? "" : "s"}`).join(", ")}`,
            fix: `keep new requests and task submissions paused and NATS running while the work drains (never discard it), then run the upgrade again; it resumes here (${inspect(full[0].pod, servers.find((s) => s.name === full[0].pod)?.port ?? NATS.monitorPort)})`,
        };
    }
    return {
        name,
        ok: true,
        detail: `${streams.length} single-replica memory stream${streams.length === 1 ? " is" : "s are"} present and empty on ${servers.length} NATS server${servers.length === 1 ? "" : "s"} (${streams.map((s) => `${s.account}/${s.name}`).join(", ")})`,
        fix: "",
    };
}
