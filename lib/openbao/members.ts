import type { Kube, KubeAnswer } from "../kubernetes/client";
import { excerpt } from "../http/client";
import { explain } from "./client";
import { OPENBAO_API } from "./contract";
import { messageOf } from "../text/message-of";

/** Where OpenBao's members listen: pod `<statefulSet>-<ordinal>` in `namespace`, on `port`. */
export interface MemberEndpoint {
    readonly namespace: string;
    readonly port: number;
    /** The scheme of OpenBao's listener inside the cluster (the bundle serves plain http). */
    readonly scheme: "http" | "https";
}

/** `GET /v1/sys/health` of one member. */
export interface MemberHealth {
    readonly initialized: boolean;
    readonly sealed: boolean;
    readonly standby: boolean;
    /** Absent while sealed: a sealed member does not know its cluster yet. */
    readonly clusterId?: string;
    readonly version?: string;
}

/** `GET /v1/sys/leader` of one member. */
export interface MemberLeader {
    /** This member is the active one. */
    readonly isSelf: boolean;
    /** The active member's API address as this member knows it; "" when it knows none. */
    readonly leaderAddress: string;
}

/** One server of `GET /v1/sys/storage/raft/configuration`. */
export interface RaftServer {
    readonly nodeId: string;
    readonly address: string;
    readonly leader: boolean;
    readonly voter: boolean;
}

/**
 * OpenBao's HTTP API, member by member (every call names the pod it is sent to). Only the
 * documented endpoints: health, leader, step-down, the Raft configuration, and authenticated
 * reads for the JWT mount checks.
 */
export interface OpenBaoMembers {
    health(pod: string): Promise<MemberHealth>;
    leader(pod: string): Promise<MemberLeader>;
    /** `PUT /v1/sys/step-down`: the active member gives up leadership (a token with sudo). */
    stepDown(pod: string): Promise<void>;
    raftServers(pod: string): Promise<RaftServer[]>;
    /** An authenticated `GET /v1/<path>`: the answer's JSON, or undefined for a 404. */
    read(pod: string, path: string): Promise<unknown>;
    /** An authenticated `POST /v1/<path>` of a JSON body (a standby forwards it to the active member); the answer's JSON, if any. */
    write(pod: string, path: string, body: unknown): Promise<unknown>;
}

/** An answer that is not what OpenBao documents for the endpoint: the member, the call and what came back. */
export class MemberAnswerError extends Error {
    constructor(
        readonly pod: string,
        message: string,
        /** The HTTP status, when an answer came. */
        readonly status?: number,
    ) {
        super(`${pod}: ${message}`);
        this.name = "MemberAnswerError";
    }

    /** Waiting does not help: the token is refused. */
    get refused(): boolean {
        return this.status === 401 || this.status === 403;
    }
}

/**
 * The members through the API server's pod proxy, with the kubeconfig's own credentials: each
 * request goes to one pod, which a Service in front of OpenBao could not promise. `token` is
 * asked for only by the calls that need one, so an unauthenticated look never reads a secret.
 */
export function podProxyMembers(kube: Kube, endpoint: MemberEndpoint, token: () => Promise<string>): OpenBaoMembers {
    const base = (pod: string) =>
        `/api/v1/namespaces/${endpoint.namespace}/pods/${endpoint.scheme === "https" ? "https:" : ""}${pod}:${endpoint.port}/proxy`;
    const call = async (pod: string, method: "GET" | "PUT" | "POST", path: string, auth: boolean, body?: unknown): Promise<KubeAnswer> => {
        const headers = auth ? { "X-Vault-Token": await token() } : undefined;
        try {
            return await kube.request(
                method,
                `${base(pod)}/v1/${path}`,
                body,
                body === undefined ? undefined : "application/json",
                headers,
            );
        } catch (err) {
            throw new MemberAnswerError(pod, `${method} /v1/${path} got no answer: ${messageOf(err)}`);
        }
    };
    const bad = (pod: string, method: string, path: string, res: KubeAnswer, what?: string) =>
        new MemberAnswerError(
            pod,
            what
                ? `${method} /v1/${path} answered ${res.status} without ${what}: ${excerpt(res.text, 200) || "an empty body"}`
                : `${method} /v1/${path}: ${explain(`${kube.server}${base(pod)}`, { status: res.status, body: res.text }, pod)}`,
            res.status,
        );
    const object = (res: KubeAnswer): Record<string, unknown> | undefined =>
        res.body && typeof res.body === "object" && !Array.isArray(res.body) ? (res.body as Record<string, unknown>) : undefined;

    return {
        async health(pod) {
            // Every state answers 200 with its body, so a sealed or standby member is told apart by what it says.
            const path = `${OPENBAO_API.health}?standbyok=true&perfstandbyok=true&sealedcode=200&uninitcode=200`;
            const res = await call(pod, "GET", path, false);
            const b = object(res);
            if (res.status !== 200 || !b) throw bad(pod, "GET", path, res);
            if (typeof b.initialized !== "boolean" || typeof b.sealed !== "boolean" || typeof b.standby !== "boolean") {
                throw bad(pod, "GET", path, res, "OpenBao's documented initialized, sealed and standby");
            }
            return {
                initialized: b.initialized,
                sealed: b.sealed,
                standby: b.standby,
                ...(typeof b.cluster_id === "string" && b.cluster_id ? { clusterId: b.cluster_id } : {}),
                ...(typeof b.version === "string" ? { version: b.version } : {}),
            };
        },
        async leader(pod) {
            const res = await call(pod, "GET", OPENBAO_API.leader, false);
            const b = object(res);
            if (res.status !== 200 || !b) throw bad(pod, "GET", OPENBAO_API.leader, res);
            // ha_enabled is the one field every version sends; it tells a leader answer from any other body.
            if (typeof b.ha_enabled !== "boolean") throw bad(pod, "GET", OPENBAO_API.leader, res, "OpenBao's documented ha_enabled");
            // From 2.6.0 is_self is omitempty: a standby's answer has none, which is false.
            if (b.is_self !== undefined && typeof b.is_self !== "boolean") {
                throw bad(pod, "GET", OPENBAO_API.leader, res, "OpenBao's documented is_self (a boolean, absent when false)");
            }
            return { isSelf: b.is_self === true, leaderAddress: typeof b.leader_address === "string" ? b.leader_address : "" };
        },
        async stepDown(pod) {
            const res = await call(pod, "PUT", OPENBAO_API.stepDown, true);
            if (res.status !== 204 && res.status !== 200) throw bad(pod, "PUT", OPENBAO_API.stepDown, res);
        },
        async raftServers(pod) {
            const path = OPENBAO_API.raftConfiguration;
            const res = await call(pod, "GET", path, true);
            if (res.status !== 200) throw bad(pod, "GET", path, res);
            const servers = (object(res)?.data as { config?: { servers?: unknown } } | undefined)?.config?.servers;
            if (!Array.isArray(servers)) throw bad(pod, "GET", path, res, 'OpenBao\'s documented {"data":{"config":{"servers":[...]}}}');
            return servers.map((s: Record<string, unknown>) => ({
                nodeId: typeof s.node_id === "string" ? s.node_id : "",
                address: typeof s.address === "string" ? s.address : "",
                leader: s.leader === true,
                voter: s.voter === true,
            }));
        },
        async read(pod, path) {
            const res = await call(pod, "GET", path, true);
            if (res.status === 404) return undefined;
            if (res.status !== 200 || !object(res)) throw bad(pod, "GET", path, res);
            return res.body;
        },
        async write(pod, path, body) {
            const res = await call(pod, "POST", path, true, body);
            if (res.status !== 200 && res.status !== 204) throw bad(pod, "POST", path, res);
            return object(res);
        },
    };
}
