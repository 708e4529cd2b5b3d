/**
 * What the program reads of NATS: the bundle's nats chart (NVIDIA/nvcf fadc0f81,
 * deploy/helm/nats) and nats-server's monitoring endpoints `/jsz` and `/connz` (nats-io/nats-server
 * v2.11.17, the image the chart deploys: server/monitor.go, server/stream.go). Every row is in
 * docs/contracts.md.
 */

export const NATS = {
    namespace: "nats-system",
    /** The runbook picks the NATS pods by this container (the auth callout's pods have none). */
    container: "nats",
    /** The chart's name for the monitoring port, and its number. */
    monitorPortName: "monitor",
    monitorPort: 8222,
} as const;

/** `/jsz` pages its JetStream accounts (not streams) by `offset` and `limit`, 1024 by default. */
export const JSZ_PAGE = 1024;

/** `StorageType` as `config.storage` marshals it. */
export const JSZ_STORAGE = { memory: "memory", file: "file" } as const;

/** A stream of `stream_detail` with `config=true`: `config.num_replicas` and `config.storage` are always sent. */
export interface JszStream {
    readonly name: string;
    readonly config: {
        readonly name: string;
        readonly storage: (typeof JSZ_STORAGE)[keyof typeof JSZ_STORAGE];
        readonly num_replicas: number;
    };
    readonly state: { readonly messages: number; readonly bytes: number };
}

/** An account of `account_details`; `stream_detail` is left out when the account has no stream. */
export interface JszAccount {
    readonly name: string;
    readonly id: string;
    readonly stream_detail?: readonly JszStream[];
}

/**
 * JSInfo: `total` (JetStream accounts before paging) is always there; `account_details` is left
 * out when the page holds none (past the end, or no account), `disabled` is true without JetStream.
 */
export interface JszAnswer {
    readonly server_id: string;
    readonly disabled?: boolean;
    readonly total: number;
    readonly account_details?: readonly JszAccount[];
}

/**
 * The shared worker NKey: the chart's `templates/nkey-secret.yaml` makes this Secret once (kept by
 * `lookup` on upgrades), `user.key` the seed (`SU…`) and `user.pub` the public key (`U…`);
 * nats-box mounts it, and OpenBao's migration 03 copies it on every openbao-server install.
 */
export const NKEY_SECRET = { name: "nats-nkeys", seed: "user.key", publicKey: "user.pub" } as const;

/** `/connz` pages connections by `offset` and `limit`, 1024 by default; `auth=true` adds `authorized_user` and `account`. */
export const CONNZ_PAGE = 1024;

/** A connection of `/connz?auth=true` (ConnInfo): the fields the rotation reads. */
export interface ConnzConnection {
    readonly cid: number;
    readonly ip: string;
    readonly start: string;
    /** The client's name: NVIDIA's worker library names its connection `worker_<function version>_<instance>`. */
    readonly name?: string;
    /** An NKey login's public key, or the user name an auth callout's answer gives it. */
    readonly authorized_user?: string;
    readonly account?: string;
}

/** Connz: `total` counts the connections before paging; `connections` is always sent. */
export interface ConnzAnswer {
    readonly server_id: string;
    readonly total: number;
    readonly offset: number;
    readonly limit: number;
    readonly connections: readonly ConnzConnection[];
}

/** NVIDIA's worker library (src/libraries/go/worker/nvcf/client.go) names each NATS connection `worker_<fv>_<instance>`. */
export const WORKER_CONNECTION_PREFIX = "worker_";
/** In token mode the auth callout names a worker's user after its function version, `worker-…` (the 1.1.0 operations' log check). */
export const TOKEN_WORKER_USER_PREFIX = "worker-";
