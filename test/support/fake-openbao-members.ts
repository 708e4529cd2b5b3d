import { OPENBAO_API } from "../../lib/openbao/contract";
import { healthAnswer, leaderAnswer, sealStatusAnswer, type OpenBaoVersion } from "./openbao-answers";

/**
 * OpenBao's members as its HTTP API documents them, for exactly the endpoints the rollout and the
 * JWT checks and the health gate call: `sys/health` (its query codes, no cluster ID while sealed),
 * `sys/seal-status` (no token, answered sealed or not), `sys/leader`
 * (503 while sealed), `sys/step-down` (a token with sudo; 204; another member takes over),
 * `sys/storage/raft/configuration`, `sys/mounts` and the plugin catalog (token: 403
 * `permission denied` without it). A restarted member comes back sealed; its auto-unseal sidecar
 * unseals it after a few looks unless told it stays sealed; then it rejoins Raft, first as a
 * non-voter. For the unit suite, which runs without the end-to-end tools and needs answers a real
 * server cannot be made to give; test/openbao-answers.test.ts holds its answers to a recording of
 * the real OpenBao 2.5.5, and its 2.6.2 answers (`version`) to what 2.6.0 changed.
 */

export interface FakeAnswer {
    readonly status: number;
    readonly body?: unknown;
}

interface Member {
    sealed: boolean;
    clusterId: string;
    inRaft: boolean;
    voter: boolean;
    /** Health looks left before the sidecar unseals it. */
    sealedLooks: number;
}

export interface FakeMount {
    readonly type: string;
    readonly uuid: string;
    readonly plugin_version: string;
    readonly running_plugin_version: string;
    readonly running_sha256: string;
}

/** The JWT mount the fake starts with (migration 09's), on the plugin version the bridge retains. */
export const INSTALLED_JWT_MOUNT = {
    path: "services/nvcf-api/jwt/",
    uuid: "uuid-nvcf-api",
    version: "v1.3.7",
    sha256: "a".repeat(64),
} as const;

/**
 * What three members led by openbao-server-0 see of a rollout in the runbook's order: each standby
 * back (unsealed) before the next goes, the leader's step-down before its own replacement.
 */
export const RUNBOOK_EVENTS = [
    "restart openbao-server-2",
    "unsealed openbao-server-2",
    "restart openbao-server-1",
    "unsealed openbao-server-1",
    "step-down openbao-server-0",
    "leader openbao-server-1",
    "restart openbao-server-0",
    "unsealed openbao-server-0",
] as const;

export class FakeOpenBaoMembers {
    readonly rootToken = "root-token";
    readonly clusterId = "c0ffee00-0000-4000-8000-000000000001";
    /** The release whose seal status, health and leader answers it gives (test/support/openbao-answers.ts). */
    version: OpenBaoVersion = "2.5.5";
    leader: string | undefined;
    /** What happened, in order: `restart <pod>`, `unsealed <pod>`, `step-down <pod>`, `leader <pod>`. */
    readonly events: string[] = [];
    readonly requests: { pod: string; method: string; path: string }[] = [];
    /** Members that stay sealed after their next restart (no unseal key, a broken sidecar). */
    readonly staysSealed = new Set<string>();
    /** Members that come back in another cluster after their next restart (their Raft data lost). */
    readonly rejoinsAs = new Map<string, string>();
    /** How many health looks a restarted member stays sealed. */
    unsealAfter = 2;
    /** Whether a step-down elects another member. */
    electsOnStepDown = true;
    readonly mounts: Record<string, FakeMount | { type: string }> = {
        "cubbyhole/": { type: "cubbyhole" },
        [INSTALLED_JWT_MOUNT.path]: jwtMount(INSTALLED_JWT_MOUNT.version, INSTALLED_JWT_MOUNT.sha256, INSTALLED_JWT_MOUNT.uuid),
    };
    readonly catalog: { name: string; type: string; version: string; sha256: string; builtin: boolean }[] = [
        { name: "vault-plugin-secrets-jwt", type: "secret", version: "v1.3.7", sha256: "a".repeat(64), builtin: false },
        { name: "kv", type: "secret", version: "v2.5.5+builtin", sha256: "", builtin: true },
    ];
    /** Answers to send instead, by `<pod> <METHOD> <path>` pattern, each a number of times. */
    private faults: { match: RegExp; answer: FakeAnswer; times: number }[] = [];
    private readonly members = new Map<string, Member>();

    constructor(readonly names: readonly string[]) {
        for (const name of names)
            this.members.set(name, { sealed: false, clusterId: this.clusterId, inRaft: true, voter: true, sealedLooks: 0 });
        this.leader = names[0];
    }

    member(name: string): Member {
        const m = this.members.get(name);
        if (!m) throw new Error(`no member ${name}`);
        return m;
    }

    inject(match: RegExp, answer: FakeAnswer, times = 1): void {
        this.faults.push({ match, answer, times });
    }

    /** Its pod was replaced: the new process starts sealed and out of the Raft configuration until it unseals. */
    restart(name: string): void {
        const m = this.member(name);
        m.sealed = true;
        m.sealedLooks = this.unsealAfter;
        m.inRaft = false;
        m.voter = false;
        this.events.push(`restart ${name}`);
        if (this.leader === name) this.elect(name);
    }

    /** kv-v2 mounts (migrations 09 and 20 enable these) and their secrets' versions, by `<mount>/data/<key>`. */
    readonly kvMounts = new Set(["services/nvcf-api/kv", "services/nvct-api/kv", "services/all/kv"]);
    readonly kv = new Map<string, { data: Record<string, unknown>; created_time: string }[]>();
    /** Each secret's custom metadata, by `<mount>/data/<key>`. */
    readonly kvCustomMetadata = new Map<string, Record<string, string>>();
    /** OpenBao's clock, for `created_time`. */
    now = () => new Date();

    handle(pod: string, method: string, pathAndQuery: string, token: string | undefined, sent?: unknown): FakeAnswer {
        const [path, query = ""] = pathAndQuery.replace(/^\/?v1\//, "").split("?");
        this.requests.push({ pod, method, path });
        const fault = this.faults.find((f) => f.times > 0 && f.match.test(`${pod} ${method} ${path}`));
        if (fault) {
            fault.times--;
            return fault.answer;
        }
        const m = this.members.get(pod);
        if (!m) return { status: 404, body: { errors: [] } };
        if (method === "GET" && path === OPENBAO_API.health) return this.health(pod, m, new URLSearchParams(query));
        if (method === "GET" && path === OPENBAO_API.sealStatus) {
            const body = sealStatusAnswer({ sealed: m.sealed, cluster_name: "vault-cluster-e2e", cluster_id: m.clusterId }, this.version);
            return { status: 200, body };
        }
        if (m.sealed) return { status: 503, body: { errors: ["Vault is sealed"] } };
        if (method === "GET" && path === OPENBAO_API.leader) {
            const state = {
                isSelf: this.leader === pod,
                leaderAddress: this.leader ? `http://${this.leader}.openbao-server-internal:8200` : "",
                leaderClusterAddress: this.leader ? `https://${this.leader}.openbao-server-internal:8201` : "",
                activeTime: "2026-12-01T00:00:00Z",
                raftCommittedIndex: 42,
                raftAppliedIndex: 42,
            };
            return { status: 200, body: leaderAnswer(state, this.version) };
        }
        if (token !== this.rootToken) return { status: 403, body: { errors: ["permission denied"] } };
        if ((method === "PUT" || method === "POST") && path === OPENBAO_API.stepDown) {
            // A standby forwards the request to the active member, which steps down.
            if (this.leader) {
                this.events.push(`step-down ${this.leader}`);
                this.elect(this.leader);
            }
            return { status: 204 };
        }
        const kv = [...this.kvMounts].find((m) => path.startsWith(`${m}/data/`) || path.startsWith(`${m}/metadata/`));
        if (kv && path.startsWith(`${kv}/metadata/`)) {
            if (method !== "POST" && method !== "PUT") return { status: 405, body: { errors: ["unsupported operation"] } };
            const custom = (sent as { custom_metadata?: Record<string, string> } | undefined)?.custom_metadata;
            if (custom) this.kvCustomMetadata.set(path.replace(`${kv}/metadata/`, `${kv}/data/`), { ...custom });
            return { status: 204 };
        }
        if (kv) return this.kvAnswer(method, path, sent);
        if (method !== "GET") return { status: 405, body: { errors: ["unsupported operation"] } };
        if (path === OPENBAO_API.raftConfiguration) {
            const servers = this.names
                .filter((n) => this.member(n).inRaft)
                .map((n) => ({
                    node_id: n,
                    address: `${n}.openbao-server-internal:8201`,
                    leader: n === this.leader,
                    protocol_version: "3",
                    voter: this.member(n).voter,
                }));
            // A member that rejoined is a non-voter in one answer, then promoted.
            for (const n of this.names) if (this.member(n).inRaft) this.member(n).voter = true;
            return { status: 200, body: { data: { config: { index: 42, servers } } } };
        }
        if (path === OPENBAO_API.mounts) return { status: 200, body: { ...this.mounts, data: this.mounts } };
        if (path === OPENBAO_API.pluginCatalog) {
            return {
                status: 200,
                body: {
                    data: {
                        detailed: this.catalog,
                        secret: [...new Set(this.catalog.filter((e) => e.type === "secret").map((e) => e.name))],
                    },
                },
            };
        }
        const info = /^sys\/plugins\/catalog\/secret\/(.+)$/.exec(path);
        if (info) {
            const version = new URLSearchParams(query).get("version") ?? "";
            const entry = this.catalog.find((e) => e.type === "secret" && e.name === info[1] && e.version === version);
            // The real entry has no `type` (test/fixtures/openbao-2.5.5.json).
            const { type: _type, ...described } = entry ?? { type: "" };
            return entry
                ? { status: 200, body: { data: { ...described, command: entry.name, args: [] } } }
                : { status: 404, body: { errors: [] } };
        }
        return { status: 404, body: { errors: [`no handler for route "${path}". route entry not found.`] } };
    }

    private health(pod: string, m: Member, q: URLSearchParams): FakeAnswer {
        if (m.sealed && m.sealedLooks > 0 && !this.staysSealed.has(pod)) {
            m.sealedLooks--;
            if (m.sealedLooks === 0) {
                m.sealed = false;
                m.clusterId = this.rejoinsAs.get(pod) ?? this.clusterId;
                m.inRaft = m.clusterId === this.clusterId;
                m.voter = false;
                this.events.push(`unsealed ${pod}`);
                if (!this.leader) this.elect(undefined);
            }
        }
        const standby = this.leader !== pod;
        const code = (name: string, dflt: number) => (q.has(name) ? Number(q.get(name)) : dflt);
        const status = m.sealed
            ? code("sealedcode", 503)
            : standby
              ? q.get("standbyok") === "true"
                  ? code("activecode", 200)
                  : code("standbycode", 429)
              : code("activecode", 200);
        const body = healthAnswer({ sealed: m.sealed, standby, cluster_name: "vault-cluster-e2e", cluster_id: m.clusterId }, this.version);
        return { status, body };
    }

    /** `GET`/`POST <mount>/data/<key>` of a kv-v2 mount, with the fields OpenBao 2.5.5 answers (test/fixtures/openbao-2.5.5.json). */
    private kvAnswer(method: string, path: string, sent: unknown): FakeAnswer {
        const versions = this.kv.get(path) ?? [];
        const metadata = (v: number) => ({
            created_time: versions[v - 1].created_time,
            custom_metadata: this.kvCustomMetadata.get(path) ?? null,
            deletion_time: "",
            destroyed: false,
            version: v,
        });
        const envelope = (data: unknown) => ({
            request_id: "00000000-0000-4000-8000-000000000000",
            lease_id: "",
            renewable: false,
            lease_duration: 0,
            data,
            wrap_info: null,
            warnings: null,
            auth: null,
        });
        if (method === "GET") {
            if (versions.length === 0) return { status: 404, body: { errors: [] } };
            return { status: 200, body: envelope({ data: versions[versions.length - 1].data, metadata: metadata(versions.length) }) };
        }
        if (method === "POST" || method === "PUT") {
            const data = (sent as { data?: unknown } | undefined)?.data;
            if (!data || typeof data !== "object") return { status: 400, body: { errors: ["no data provided"] } };
            const cas = (sent as { options?: { cas?: number } }).options?.cas;
            if (cas !== undefined && cas !== versions.length) {
                return { status: 400, body: { errors: ["check-and-set parameter did not match the current version"] } };
            }
            versions.push({ data: { ...(data as Record<string, unknown>) }, created_time: this.now().toISOString() });
            this.kv.set(path, versions);
            const { created_time, custom_metadata, deletion_time, destroyed, version } = metadata(versions.length);
            return { status: 200, body: envelope({ created_time, custom_metadata, deletion_time, destroyed, version }) };
        }
        return { status: 405, body: { errors: ["unsupported operation"] } };
    }

    /** Leadership moves from `old` to the first other unsealed member of the Raft cluster (none: no leader until one unseals). */
    private elect(old: string | undefined): void {
        const next = this.electsOnStepDown
            ? this.names.find((n) => n !== old && !this.member(n).sealed && this.member(n).inRaft)
            : undefined;
        this.leader = next;
        if (next) this.events.push(`leader ${next}`);
    }
}

/** A JWT plugin mount as `sys/mounts` lists it. */
export function jwtMount(version: string, sha256: string, uuid: string, pinned = version): FakeMount {
    return { type: "vault-plugin-secrets-jwt", uuid, plugin_version: pinned, running_plugin_version: version, running_sha256: sha256 };
}
