/**
 * What the program reads of NATS: the bundle's nats chart (NVIDIA/nvcf fadc0f81,
 * deploy/helm/nats) and nats-server's monitoring endpoint `/jsz` (nats-io/nats-server
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
