/**
 * OpenBao's answers as the fakes give them: every field of the real answer (the shapes of
 * lib/openbao/contract.ts), and the cluster's name and ID only while unsealed, as the
 * real server answers (test/e2e/real-openbao-nats.test.ts). 2.5.5's as recorded
 * (test/fixtures/openbao-2.5.5.json); 2.6.2's from its source as encoding/json serializes it,
 * omitempty applied: openbao/openbao dd957eaed3 (in v2.6.0) dropped `performance_standby` from
 * HealthResponse (http/sys_health.go) and made LeaderResponse's `is_self`, `leader_address` and
 * `leader_cluster_address` omitempty and `active_time` omitzero (vault/logical_system.go);
 * 873e6e3f44 (in v2.6.0) renamed the seal status's `build_date` to `commit_date`.
 */
import type { HealthAnswer, LeaderAnswer, SealStatusAnswer } from "../../lib/openbao/contract";

/** The OpenBao versions the fakes answer as: the chart's pin, and the newest release read. */
export const OPENBAO_VERSIONS = ["2.5.5", "2.6.2"] as const;
export type OpenBaoVersion = (typeof OPENBAO_VERSIONS)[number];

type Cluster = { cluster_name?: string; cluster_id?: string };

function unsealedOnly<T extends Cluster & { sealed: boolean; initialized: boolean }>(answer: T): T {
    const { cluster_name, cluster_id, ...rest } = answer;
    return answer.sealed || !answer.initialized ? (rest as T) : ({ ...rest, cluster_name, cluster_id } as T);
}

/** `GET /v1/sys/seal-status`: 2.6.2 says `commit_date` where 2.5.5 says `build_date`. */
export function sealStatusAnswer(over: Partial<SealStatusAnswer> = {}, version: OpenBaoVersion = "2.5.5"): SealStatusAnswer {
    return unsealedOnly({
        type: "shamir",
        initialized: true,
        sealed: false,
        t: 1,
        n: 1,
        progress: 0,
        nonce: "",
        version,
        ...(version === "2.5.5" ? { build_date: "2026-01-01T00:00:00Z" } : { commit_date: "2026-01-01T00:00:00Z" }),
        migration: false,
        recovery_seal: false,
        storage_type: "raft",
        cluster_name: "vault-cluster-test",
        cluster_id: "cid-test",
        ...over,
    });
}

/** `GET /v1/sys/health` (with whatever status code the caller asked for); 2.6.2 has no `performance_standby`. */
export function healthAnswer(over: Partial<HealthAnswer> = {}, version: OpenBaoVersion = "2.5.5"): HealthAnswer {
    return unsealedOnly({
        initialized: true,
        sealed: false,
        standby: false,
        ...(version === "2.5.5" ? { performance_standby: false } : {}),
        replication_performance_mode: "disabled",
        replication_dr_mode: "disabled",
        server_time_utc: 1796083200,
        version,
        cluster_name: "vault-cluster-test",
        cluster_id: "cid-test",
        ...over,
    });
}

/** What one unsealed Raft (so HA) member knows of the leadership. */
export interface LeaderState {
    readonly isSelf: boolean;
    /** The active member's addresses; "" when this member knows none. */
    readonly leaderAddress: string;
    readonly leaderClusterAddress: string;
    /** When the active member became active (RFC 3339). */
    readonly activeTime: string;
    readonly raftCommittedIndex: number;
    readonly raftAppliedIndex: number;
}

/** Go's zero time.Time as encoding/json writes it. */
const ZERO_TIME = "0001-01-01T00:00:00Z";

/**
 * `GET /v1/sys/leader` of an unsealed member (GetLeaderStatusLocked). Only the active member has
 * an active time: a standby's is zero (Core.activeTime is set on becoming active, cleared by preSeal).
 */
export function leaderAnswer(s: LeaderState, version: OpenBaoVersion = "2.5.5"): LeaderAnswer {
    const activeTime = s.isSelf ? s.activeTime : ZERO_TIME;
    // Both versions: the Raft indexes are omitempty.
    const indexes = {
        ...(s.raftCommittedIndex ? { raft_committed_index: s.raftCommittedIndex } : {}),
        ...(s.raftAppliedIndex ? { raft_applied_index: s.raftAppliedIndex } : {}),
    };
    if (version === "2.5.5") {
        // omitempty does not omit a struct: a standby's zero active_time is sent.
        return {
            ha_enabled: true,
            is_self: s.isSelf,
            active_time: activeTime,
            leader_address: s.leaderAddress,
            leader_cluster_address: s.leaderClusterAddress,
            ...indexes,
        };
    }
    return {
        ha_enabled: true,
        ...(s.isSelf ? { is_self: true } : {}),
        ...(activeTime !== ZERO_TIME ? { active_time: activeTime } : {}),
        ...(s.leaderAddress ? { leader_address: s.leaderAddress } : {}),
        ...(s.leaderClusterAddress ? { leader_cluster_address: s.leaderClusterAddress } : {}),
        ...indexes,
    };
}
