/**
 * What NVIDIA's openbao chart writes into a new OpenBao, as far as the program reads or revokes it,
 * done through OpenBao's HTTP API the way the chart's scripts do it with the `bao` CLI (NVIDIA/nvcf
 * fadc0f81): deploy/helm/openbao/helm/scripts/deploy.sh registers the JWT secrets plugin;
 * migrations/openbao/migrations/01, 09 and 10 (with utils/functions.sh) mount and fill it.
 */
import { ADMIN_ISSUER_GRANT_PATHS, JWT_PLUGIN } from "../../lib/openbao/contract";
import { until } from "./until";

export type BaoCall = (method: string, apiPath: string, body?: unknown) => Promise<{ status: number; body: any; text: string }>;

export { JWT_PLUGIN };
export const NVCF_API_JWT_MOUNT = "services/nvcf-api/jwt";
/** The audience generate_jwt_auth_role binds by default: the server's in-cluster URL. */
const OPENBAO_INTERNAL_URL = "http://openbao-server.vault-system.svc.cluster.local:8200";

async function ok(call: BaoCall, method: string, apiPath: string, body?: unknown): Promise<void> {
    const res = await call(method, apiPath, body);
    if (res.status < 200 || res.status > 299) throw new Error(`${method} ${apiPath}: ${res.status} ${res.text}`);
}

/**
 * utils/functions.sh enable_secrets_mount for kv-v2, then ready for writes: a new kv-v2 mount answers 400 "Upgrading
 * from non-versioned to versioned data" until its upgrade ends (OpenBao v2.5.5 builtin/logical/kv/upgrade.go; OpenBao's
 * own tests wait it out). `probe` is a key under the mount, read meanwhile. A mount made already fails, unless
 * `mayExist` says another migration made it (enable_secrets_mount keeps it).
 */
export async function mountKvV2(call: BaoCall, mount: string, probe: string, { mayExist = false } = {}): Promise<void> {
    const made = await call("POST", `sys/mounts/${mount}`, { type: "kv", options: { version: "2" } });
    if (made.status !== 204 && !(mayExist && /path is already in use/.test(made.text)))
        throw new Error(`mount ${mount}: ${made.status} ${made.text}`);
    await until(`${mount} upgraded to kv-v2`, async () => {
        const read = await call("GET", `${mount}/data/${probe}`);
        return read.status !== 400 || !/Upgrading from non-versioned/.test(read.text);
    });
}

/** deploy.sh register_and_enable_jwt_plugin: once, by the binary's SHA-256, with no version (the plugin reports none). */
export async function registerJwtPlugin(call: BaoCall, sha256: string, version?: string): Promise<void> {
    await ok(call, "PUT", `sys/plugins/catalog/secret/${JWT_PLUGIN}`, { sha256, command: JWT_PLUGIN, ...(version ? { version } : {}) });
}

/** utils/functions.sh generate_jwt_secret_role: issuer the target service, the client in azp, aud and sub. */
function secretRole(namespace: string, service: string, client: string, scopes: string[]) {
    return {
        issuer: `http://${service}.${namespace}.svc.cluster.local`,
        claims: { azp: client, aud: [client, `s:${service}`], scopes, sub: client },
    };
}

/** utils/functions.sh generate_jwt_auth_role: a service account's role on the JWT auth mount. */
function authRole(serviceAccount: string, namespace: string, policies: string[]) {
    return {
        role_type: "jwt",
        bound_audiences: [OPENBAO_INTERNAL_URL],
        bound_claims_type: "string",
        bound_claims: { "/kubernetes.io/serviceaccount/name": serviceAccount, "/kubernetes.io/namespace": namespace },
        claim_mappings: {
            "/kubernetes.io/namespace": "service_account_namespace",
            "/kubernetes.io/serviceaccount/name": "service_name",
            "/kubernetes.io/pod/name": "pod_name",
        },
        user_claim: "sub",
        clock_skew_leeway: 60,
        expiration_leeway: 60,
        not_before_leeway: 60,
        token_period: 43200,
        token_type: "service",
        policies,
        bound_issuer: "https://kubernetes.default.svc.cluster.local",
    };
}

const aclPolicy = (path: string, capabilities: string[]) =>
    `path "${path}" {\n  capabilities = [${capabilities.map((c) => `"${c}"`).join(", ")}]\n}`;

/** utils/functions.sh enable_auth_mount for a JWT auth method at `mountPath`. */
export async function enableJwtAuth(call: BaoCall, mountPath = "jwt"): Promise<void> {
    await ok(call, "POST", `sys/auth/${mountPath}`, { type: "jwt" });
}

/** Migration 01 (the JWT auth mount) and the nvcf-api part of 09: its JWT secrets mount, config, roles and policy. */
export async function firstMigrations(call: BaoCall): Promise<void> {
    await enableJwtAuth(call);
    await ok(call, "POST", `sys/mounts/${NVCF_API_JWT_MOUNT}`, { type: JWT_PLUGIN });
    // generate_jwt_secret_mount_config's defaults.
    await ok(call, "PUT", `${NVCF_API_JWT_MOUNT}/config`, {
        allowed_claims: ["azp", "aud", "sub", "scopes"],
        allowed_headers: null,
        audience_pattern: ".*",
        jwt_ttl: "12h",
        key_ttl: "87660h",
        max_audiences: -1,
        rsa_key_bits: 2048,
        set_iat: true,
        set_jti: true,
        set_nbf: true,
        sig_alg: "ES256",
        subject_pattern: ".*",
    });
    await ok(
        call,
        "PUT",
        `${NVCF_API_JWT_MOUNT}/roles/nvcf-api-admin`,
        secretRole("nvcf", "api", "nvcf-api-account-bootstrap", ["account_setup", "admin:list_functions"]),
    );
    await ok(call, "PUT", `${NVCF_API_JWT_MOUNT}/roles/nvcf-api`, secretRole("nvcf", "api", "nvcf-api", ["notary-sign", "make-assertion"]));
    const policy = "services-nvcf-api-jwt-sign-nvcf-api-rw";
    await ok(call, "PUT", `sys/policies/acl/${policy}`, {
        policy: aclPolicy(`${NVCF_API_JWT_MOUNT}/sign/nvcf-api`, ["create", "update", "read"]),
    });
    await ok(call, "PUT", "auth/jwt/role/nvcf-api", authRole("nvcf-api", "nvcf", ["services-all-kv-ro", policy]));
}

/** 10_setup_admin-issuer.sh, which the migrations Job runs after every install and upgrade: the admin issuer's grant. */
export async function migration10(call: BaoCall, clientId = "admin-issuer-proxy"): Promise<void> {
    await ok(
        call,
        "PUT",
        ADMIN_ISSUER_GRANT_PATHS.secretRole,
        secretRole("nvcf", "api", clientId, ["register_function", "list_functions", "cluster-management"]),
    );
    const policyName = ADMIN_ISSUER_GRANT_PATHS.policy.split("/").pop()!;
    await ok(call, "PUT", ADMIN_ISSUER_GRANT_PATHS.policy, {
        policy: aclPolicy(`${NVCF_API_JWT_MOUNT}/sign/admin-issuer-proxy`, ["create", "update", "read"]),
    });
    await ok(call, "PUT", ADMIN_ISSUER_GRANT_PATHS.authRole, authRole("admin-issuer-proxy", "api-keys", [policyName]));
}
