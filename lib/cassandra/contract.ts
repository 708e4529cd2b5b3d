/**
 * NVIDIA's cassandra chart (deploy/helm/cassandra/helm, NVIDIA/nvcf@fadc0f81): the fullname is
 * fixed to `cassandra` (`_helpers.tpl`), so the StatefulSet, its container and the client Service
 * keep these names in every install; the migrations hook reaches CQL at the Service's port 9042.
 */
export const CASSANDRA = {
    namespace: "cassandra-system",
    statefulSet: "cassandra",
    container: "cassandra",
    host: "cassandra.cassandra-system.svc.cluster.local",
    port: 9042,
} as const;

/**
 * The chart's superuser (`cassandra.dbUser` in values.yaml): the stack never sets it, so every
 * install keeps Cassandra's own default login, which the hooks use too.
 */
export const CASSANDRA_SUPERUSER = { user: "cassandra", password: "cassandra" } as const;

/**
 * The service roles and where OpenBao keeps each one's login. Every keyspace's
 * `02_init_roles.up.sql` (migrations/cassandra/keyspaces) creates `<keyspace>_app_v0` once, with
 * `SERVICE_ROLE_PASSWORD`; the OpenBao migrations write `cassandra/creds` {username, password}
 * under the service's kv mount once, with `DEFAULT_CASSANDRA_PASSWORD` (`write_secrets_kv`
 * without overwrite); sis-api's holds more fields beside them.
 */
export const CASSANDRA_SERVICE_ROLES: Readonly<Record<string, string>> = {
    api_keys_api_app_v0: "services/api-keys-api/kv",
    ess_api_app_v0: "services/ess-api/kv",
    event_ledger_app_v0: "services/event-ledger/kv",
    nvcf_api_app_v0: "services/nvcf-api/kv",
    nvcf_autoscaler_app_v0: "services/nvcf-autoscaler-service/kv",
    nvct_api_app_v0: "services/nvct-api/kv",
    sis_api_app_v0: "services/sis-api/kv",
};

/** The key of each service's Cassandra login under its kv mount: fields `username`, `password`. */
export const CASSANDRA_CREDS_KEY = "cassandra/creds";

/**
 * Cassandra 5.0.8 refuses a role's second password change within 5 s of the last (its creation
 * included): `code=1001 [Coordinator node overloaded] message="Password for role <r> can only be
 * changed every 5000ms."`, as cqlsh 6.2.2 prints it against the real server.
 */
export const CASSANDRA_PASSWORD_CHANGE_REFUSED = "can only be changed every";

/** Cassandra 5.0.8's refusal of a login (`code=0100 [Bad credentials]`), as cqlsh prints it: retrying will not help. */
export const CASSANDRA_BAD_CREDENTIALS = "Bad credentials";
