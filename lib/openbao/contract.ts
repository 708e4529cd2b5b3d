/**
 * What the program reads and writes of OpenBao and of NVIDIA's openbao chart: openbao/openbao
 * v2.5.5 (the version the chart pins: vault/logical_system.go, http/sys_seal.go,
 * http/sys_health.go, vault/mount.go) through v2.6.2 (the answer shapes below mark what 2.6.0
 * changed) and NVIDIA/nvcf fadc0f81 (deploy/helm/openbao, migrations/openbao). Every row is in
 * docs/contracts.md.
 */

/** openbao-server as the program reaches it: its first Raft member and the chart's root-token Secret. */
export const OPENBAO = {
    release: "openbao-server",
    /** The chart's fullnameOverride: its members are the pods openbao-server-<ordinal>. */
    statefulSet: "openbao-server",
    pod: "openbao-server-0",
    port: 8200,
    rootTokenSecret: { name: "openbao-server-root-token", key: "root_token" },
} as const;

/** The HTTP API paths under /v1 the program calls (every one it calls is here: test/contracts.test.ts scans for others). */
export const OPENBAO_API = {
    /** Unauthenticated: `initialized`, `sealed`, `version`, `cluster_id` (empty while sealed). */
    sealStatus: "sys/seal-status",
    /** With standbyok, sealedcode and uninitcode, every member answers 200 with `initialized`, `sealed`, `standby`, `cluster_id`. */
    health: "sys/health",
    /** `ha_enabled`, `is_self` (absent when false from 2.6.0), `leader_address`; 503 while sealed. */
    leader: "sys/leader",
    /** PUT, 204; a standby forwards it to the active member. */
    stepDown: "sys/step-down",
    /** `data.config.servers[]`: `node_id`, `address`, `leader`, `voter`. */
    raftConfiguration: "sys/storage/raft/configuration",
    /** Each mount: `type`, `uuid`, `plugin_version`, `running_plugin_version`, `running_sha256`. */
    mounts: "sys/mounts",
    /** `data.detailed[]`: `name`, `type`, `version`, `builtin`; `catalog/secret/<name>[?version=]`: `data.sha256`. */
    pluginCatalog: "sys/plugins/catalog",
    /** ACL policies: DELETE answers 204, also for one that does not exist; LIST answers `data.keys`. */
    aclPolicies: "sys/policies/acl",
} as const;

/** The JWT secrets plugin NVCF mounts (migration 09 creates `services/nvcf-api/jwt`; deploy.sh registers it unversioned). */
export const JWT_PLUGIN = "vault-plugin-secrets-jwt";

/** What migration 10_setup_admin-issuer.sh writes on every run of the migrations Job (no existence check, no switch). */
export const ADMIN_ISSUER_GRANT_PATHS = {
    authRole: "auth/jwt/role/admin-issuer-proxy",
    policy: "sys/policies/acl/services-admin-issuer-proxy-jwt-sign-admin-issuer-proxy-rw",
    secretRole: "services/nvcf-api/jwt/roles/admin-issuer-proxy",
} as const;

/** A kv-v2 secret: its mount and its key under the mount. */
export interface KvTarget {
    readonly mount: string;
    readonly key: string;
}

/**
 * The sidecar image-pull credential, field `secret`: migrations 09_setup_nvcf-api.sh and
 * 20_setup_nvct.sh write it (only when absent) into the kv-v2 mounts of nvcf-api and nvct-api;
 * nvcf-api's agent template reads `services/nvcf-api/kv/data/sidecars/image-pull-secret`.
 */
export const SIDECAR_PULL_SECRET: Readonly<Record<"nvcfApi" | "nvctApi", KvTarget>> = {
    nvcfApi: { mount: "services/nvcf-api/kv", key: "sidecars/image-pull-secret" },
    nvctApi: { mount: "services/nvct-api/kv", key: "sidecars/image-pull-secret" },
};

/**
 * The master encryption keys: migration 03_setup_shared_secrets.sh writes `keys`, `current_kid`,
 * `jwe_mapping` and `private_jwks` once ("Must never overwrite!") into the kv-v2 mount of
 * 02_setup_shared_secrets_mount.sh; ESS, api-keys and nvcf-api read them through their agents.
 */
export const MEK_STORED_DATA: KvTarget = { mount: "services/all/kv", key: "encryption/keys/stored_data" };

/**
 * The shared NATS NKey as OpenBao holds it: migration 03_setup_shared_secrets.sh copies the
 * `nats-nkeys` Secret on every openbao-server install and upgrade (overwrite) into `nats/creds`
 * (`key`, the seed; `public_key`) and its public key into `nats/auth-callout-creds`
 * (`shared_worker_nkey_pub`, beside the callout's own `nkey_seed`, `nkey_signature` and
 * `shared_worker_account`). nvcf-api, invocation-service, grpc-proxy and sis read `nats/creds`,
 * the auth callout `nats/auth-callout-creds`, each through its agent when its pod starts.
 */
export const NATS_CREDS: KvTarget = { mount: "services/all/kv", key: "nats/creds" };
export const NATS_AUTH_CALLOUT_CREDS: KvTarget = { mount: "services/all/kv", key: "nats/auth-callout-creds" };

/** `GET /v1/sys/seal-status` (SealStatusResponse, from 2.6.0 CoreSealStatusResponse, vault/logical_system.go). */
export interface SealStatusAnswer {
    readonly type: string;
    readonly initialized: boolean;
    readonly sealed: boolean;
    readonly t: number;
    readonly n: number;
    readonly progress: number;
    readonly nonce: string;
    readonly version: string;
    /** Up to 2.5.x; 2.6.0 renamed it `commit_date`. */
    readonly build_date?: string;
    /** From 2.6.0. */
    readonly commit_date?: string;
    readonly migration: boolean;
    readonly cluster_name?: string;
    readonly cluster_id?: string;
    readonly recovery_seal: boolean;
    readonly recovery_seal_type?: string;
    readonly storage_type?: string;
    /** Never set by the server (2.5.5 to 2.6.2). */
    readonly warnings?: readonly string[];
}

/**
 * `GET /v1/sys/leader` (LeaderResponse, vault/logical_system.go): no `performance_standby` in
 * OpenBao. From 2.6.0 every field but `ha_enabled` is omitempty (omitzero for `active_time`),
 * and an answer without HA is `ha_enabled` alone.
 */
export interface LeaderAnswer {
    readonly ha_enabled: boolean;
    /** Absent from 2.6.0 when false: a standby's answer has none. */
    readonly is_self?: boolean;
    /** 2.5.5 sends a standby's as 0001-01-01T00:00:00Z; 2.6.0 omits it. */
    readonly active_time?: string;
    /** Absent from 2.6.0 when empty (a standby that knows no active member). */
    readonly leader_address?: string;
    /** Absent from 2.6.0 when empty. */
    readonly leader_cluster_address?: string;
    readonly raft_committed_index?: number;
    readonly raft_applied_index?: number;
}

/** `GET /v1/sys/health` (HealthResponse, http/sys_health.go). */
export interface HealthAnswer {
    readonly initialized: boolean;
    readonly sealed: boolean;
    readonly standby: boolean;
    /** Always false in 2.5.5; gone from 2.6.0. */
    readonly performance_standby?: boolean;
    readonly replication_performance_mode: string;
    readonly replication_dr_mode: string;
    readonly server_time_utc: number;
    readonly version: string;
    readonly cluster_name?: string;
    readonly cluster_id?: string;
    /** Never set by 2.5.5's server; gone from 2.6.0. */
    readonly last_wal?: number;
}
