import type { Kube } from "../kubernetes/client";
import { excerpt } from "../http/client";
import { CONNZ_PAGE, NATS, TOKEN_WORKER_USER_PREFIX, WORKER_CONNECTION_PREFIX, type ConnzConnection } from "./contract";
import { monitorPath, natsServers, type NatsServerPod } from "./servers";

/** A worker connection that may hold the shared NKey, on the server that has it. */
export interface HeldConnection {
    readonly server: string;
    readonly cid: number;
    readonly name: string;
    readonly ip: string;
    readonly start: string;
    /** `nkey`: logged in with the shared key itself; `unknown`: a name the rotation cannot place. */
    readonly login: "nkey" | "unknown";
}

/** What the NATS servers say of the workers still holding the shared NKey. */
export type WorkerLook =
    { readonly known: true; readonly held: HeldConnection[]; readonly servers: number } | { readonly known: false; readonly why: string };

/**
 * The worker connections that may hold `sharedPublicKey`, on every NATS server (`/connz?auth=true`,
 * every page, through the pod proxy). A worker connection (named `worker_…` by NVIDIA's worker
 * library) that logged in with the shared key shows that key as its user; one that logged in with
 * its worker token shows the user the auth callout named after its function version (`worker-…`).
 * Any other user cannot be placed, so it counts as holding the key. A server that does not answer
 * makes the answer unknown, never empty.
 */
export async function workersHoldingKey(kube: Kube, sharedPublicKey: string, pageSize: number = CONNZ_PAGE): Promise<WorkerLook> {
    let servers: NatsServerPod[];
    try {
        servers = await natsServers(kube);
    } catch (err) {
        return { known: false, why: `the NATS pods in ${NATS.namespace} could not be listed (${(err as Error).message})` };
    }
    if (servers.length === 0) return { known: false, why: `no NATS pod (a pod with a ${NATS.container} container) in ${NATS.namespace}` };
    const held: HeldConnection[] = [];
    for (const server of servers) {
        let connections: ConnzConnection[];
        try {
            connections = await allConnections(kube, server, pageSize);
        } catch (err) {
            return { known: false, why: (err as Error).message };
        }
        for (const c of connections) {
            const login = heldBy(c, sharedPublicKey);
            if (login) held.push({ server: server.name, cid: c.cid, name: c.name ?? "", ip: c.ip, start: c.start, login });
        }
    }
    return { known: true, held, servers: servers.length };
}

/** How a connection holds the shared key, or undefined when it does not. */
export function heldBy(c: ConnzConnection, sharedPublicKey: string): HeldConnection["login"] | undefined {
    if (!c.name?.startsWith(WORKER_CONNECTION_PREFIX)) return undefined;
    if (c.authorized_user === sharedPublicKey) return "nkey";
    if (c.authorized_user?.startsWith(TOKEN_WORKER_USER_PREFIX)) return undefined;
    return "unknown";
}

async function allConnections(kube: Kube, server: NatsServerPod, pageSize: number): Promise<ConnzConnection[]> {
    const all: ConnzConnection[] = [];
    for (let offset = 0; ; offset += pageSize) {
        const res = await kube.request("GET", monitorPath(server, `connz?auth=true&offset=${offset}&limit=${pageSize}`));
        if (res.status !== 200)
            throw new Error(`${server.name}: /connz answered HTTP ${res.status}: ${excerpt(res.text, 160) || "no body"}`);
        const total: unknown = res.body?.total;
        const page: unknown = res.body?.connections ?? [];
        if (typeof total !== "number" || !Array.isArray(page)) {
            throw new Error(`${server.name}: /connz answered without total and connections`);
        }
        all.push(...(page as ConnzConnection[]));
        if (page.length === 0 || offset + page.length >= total) return all;
    }
}
