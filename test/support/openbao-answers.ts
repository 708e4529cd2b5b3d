/**
 * OpenBao 2.5.5's answers as the fakes give them: every field of the real answer (the shapes of
 * components/contracts/openbao.ts), and the cluster's name and ID only while unsealed, as the
 * real server answers (test/e2e/real-openbao-nats.test.ts).
 */
import type { HealthAnswer, SealStatusAnswer } from "../../components/contracts/openbao";

type Cluster = { cluster_name?: string; cluster_id?: string };

function unsealedOnly<T extends Cluster & { sealed: boolean; initialized: boolean }>(answer: T): T {
    const { cluster_name, cluster_id, ...rest } = answer;
    return answer.sealed || !answer.initialized ? (rest as T) : ({ ...rest, cluster_name, cluster_id } as T);
}

/** `GET /v1/sys/seal-status`. */
export function sealStatusAnswer(over: Partial<SealStatusAnswer> = {}): SealStatusAnswer {
    return unsealedOnly({
        type: "shamir",
        initialized: true,
        sealed: false,
        t: 1,
        n: 1,
        progress: 0,
        nonce: "",
        version: "2.5.5",
        build_date: "2026-01-01T00:00:00Z",
        migration: false,
        recovery_seal: false,
        storage_type: "raft",
        cluster_name: "vault-cluster-test",
        cluster_id: "cid-test",
        ...over,
    });
}

/** `GET /v1/sys/health` (with whatever status code the caller asked for). */
export function healthAnswer(over: Partial<HealthAnswer> = {}): HealthAnswer {
    return unsealedOnly({
        initialized: true,
        sealed: false,
        standby: false,
        performance_standby: false,
        replication_performance_mode: "disabled",
        replication_dr_mode: "disabled",
        server_time_utc: 1796083200,
        version: "2.5.5",
        cluster_name: "vault-cluster-test",
        cluster_id: "cid-test",
        ...over,
    });
}
