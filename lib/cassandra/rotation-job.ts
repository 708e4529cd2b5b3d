import { CASSANDRA, CASSANDRA_BAD_CREDENTIALS, CASSANDRA_PASSWORD_CHANGE_REFUSED } from "./contract";

/** The Job, and the Secret its pod reads the logins from: one at a time per cluster. */
export const ROTATION_JOB = "nvcf-cassandra-password-rotation";

/** Where the container leaves its result: the kubelet copies the file into the pod's status (at most 4096 bytes). */
export const RESULT_PATH = "/dev/termination-log";

/**
 * What the Job's container runs (`/bin/sh` of the Cassandra image, whose cqlsh the chart's hooks
 * use too). Per role: a login with the new password means it is done (`kept`); a role Cassandra
 * does not have is `absent`; otherwise the superuser runs `ALTER ROLE`, retried while Cassandra
 * refuses a second change of the role's password within its validity window, and a login with
 * the new password is retried while the role cache still holds the old one (`rotated`). The
 * statements go over stdin, so no password is in a statement's argv; cqlsh takes logins only
 * by -u/-p. A superuser login Cassandra refuses fails at once; one that cannot connect is retried
 * for a minute. One line per role in the result file, and the failure's last line on failure.
 */
export const ROTATION_SCRIPT = `set -u
: > "$RESULT_FILE"
say() { printf '%s\\n' "$1" | tee -a "$RESULT_FILE"; }
cql() { u=$1; p=$2; shift 2; cqlsh -u "$u" -p "$p" --request-timeout=30 "$@" "$CASSANDRA_HOSTS" "$CASSANDRA_PORT"; }
# cqlsh's own notices (a password on the command line, its build's server version) say nothing of what failed.
last() { printf '%s\\n' "$1" | grep -v -e '^ *$' -e '^Warning: ' -e '^Recommendation: ' -e '^WARNING: cqlsh was built' | tail -n 1 | cut -c1-300; }
n=1
until out=$(echo "SELECT key FROM system.local;" | cql "$CASSANDRA_USER" "$CASSANDRA_PASSWORD" 2>&1); do
  case "$out" in *"${CASSANDRA_BAD_CREDENTIALS}"*) say "failed superuser $CASSANDRA_USER: $(last "$out")"; exit 1 ;; esac
  if [ "$n" -ge 30 ]; then say "failed superuser $CASSANDRA_USER: $(last "$out")"; exit 1; fi
  n=$((n + 1)); sleep 2
done
quoted=$(printf '%s' "$SERVICE_ROLE_PASSWORD" | sed "s/'/''/g")
for role in $ROLES; do
  if echo "SELECT key FROM system.local;" | cql "$role" "$SERVICE_ROLE_PASSWORD" > /dev/null 2>&1; then say "kept $role"; continue; fi
  if ! out=$(echo "SELECT role FROM system_auth.roles WHERE role = '$role';" | cql "$CASSANDRA_USER" "$CASSANDRA_PASSWORD" 2>&1); then
    say "failed $role: $(last "$out")"; exit 1
  fi
  case "$out" in *"(0 rows)"*) say "absent $role"; continue ;; esac
  n=1
  until out=$(printf "ALTER ROLE %s WITH PASSWORD = '%s';\\n" "$role" "$quoted" | cql "$CASSANDRA_USER" "$CASSANDRA_PASSWORD" 2>&1); do
    case "$out" in *"${CASSANDRA_PASSWORD_CHANGE_REFUSED}"*) ;; *) say "failed $role: $(last "$out")"; exit 1 ;; esac
    if [ "$n" -ge 10 ]; then say "failed $role: $(last "$out")"; exit 1; fi
    echo "retry $role: $(last "$out")"
    n=$((n + 1)); sleep 1
  done
  n=1
  until echo "SELECT key FROM system.local;" | cql "$role" "$SERVICE_ROLE_PASSWORD" > /dev/null 2>&1; do
    if [ "$n" -ge 15 ]; then say "failed $role: the new password does not log in after ALTER ROLE"; exit 1; fi
    n=$((n + 1)); sleep 1
  done
  say "rotated $role"
done
`;

/** What the rotation Job reported for each role. */
export interface RotationResult {
    readonly rotated: string[];
    readonly kept: string[];
    readonly absent: string[];
    /** The line naming what failed, when the Job failed. */
    readonly failed?: string;
}

/** The result file's lines, as `ROTATION_SCRIPT` writes them. */
export function parseRotationResult(text: string): RotationResult {
    const result: { rotated: string[]; kept: string[]; absent: string[]; failed?: string } = { rotated: [], kept: [], absent: [] };
    for (const line of text.split("\n").map((l) => l.trim())) {
        const [word, ...rest] = line.split(" ");
        const role = rest.join(" ");
        if (word === "rotated" || word === "kept" || word === "absent") result[word].push(role);
        else if (word === "failed") result.failed = role;
    }
    return result;
}

/** What the Job takes from the live Cassandra StatefulSet: its image (which has cqlsh) and where its pods may run. */
export interface CassandraPodTemplate {
    readonly image: string;
    readonly imagePullSecrets: readonly { name: string }[];
    readonly nodeSelector?: Readonly<Record<string, string>>;
    readonly tolerations?: readonly unknown[];
}

/** The StatefulSet's pod template as the Job needs it, or a reason it cannot be used. */
export function cassandraPodTemplate(statefulSet: unknown): CassandraPodTemplate | string {
    const spec = (statefulSet as { spec?: { template?: { spec?: Record<string, unknown> } } })?.spec?.template?.spec;
    const containers = spec?.containers as { name?: string; image?: string }[] | undefined;
    const image = containers?.find((c) => c.name === CASSANDRA.container)?.image;
    if (!image) return `it has no container named ${CASSANDRA.container} with an image`;
    return {
        image,
        imagePullSecrets: (spec?.imagePullSecrets as { name: string }[] | undefined) ?? [],
        ...(spec?.nodeSelector ? { nodeSelector: spec.nodeSelector as Record<string, string> } : {}),
        ...(spec?.tolerations ? { tolerations: spec.tolerations as unknown[] } : {}),
    };
}

/**
 * The Job (batch/v1): one pod, never retried by the controller (the script retries what may be
 * retried, and a rerun of `up` starts a new Job), stopped at the deadline, deleted by the TTL
 * controller an hour after it ends if the provider could not delete it.
 */
export function rotationJob(template: CassandraPodTemplate, roles: readonly string[], deadlineSeconds: number): object {
    return {
        apiVersion: "batch/v1",
        kind: "Job",
        metadata: { name: ROTATION_JOB, namespace: CASSANDRA.namespace, labels: { "app.kubernetes.io/managed-by": "nvcf-self-managed" } },
        spec: {
            backoffLimit: 0,
            activeDeadlineSeconds: deadlineSeconds,
            ttlSecondsAfterFinished: 3600,
            template: {
                metadata: { labels: { "app.kubernetes.io/managed-by": "nvcf-self-managed" } },
                spec: {
                    restartPolicy: "Never",
                    imagePullSecrets: template.imagePullSecrets,
                    ...(template.nodeSelector ? { nodeSelector: template.nodeSelector } : {}),
                    ...(template.tolerations ? { tolerations: template.tolerations } : {}),
                    containers: [
                        {
                            name: "rotate",
                            image: template.image,
                            command: ["/bin/sh", "-c", ROTATION_SCRIPT],
                            env: [
                                { name: "CASSANDRA_HOSTS", value: CASSANDRA.host },
                                { name: "CASSANDRA_PORT", value: String(CASSANDRA.port) },
                                { name: "ROLES", value: roles.join(" ") },
                                { name: "RESULT_FILE", value: RESULT_PATH },
                            ],
                            envFrom: [{ secretRef: { name: ROTATION_JOB } }],
                            terminationMessagePath: RESULT_PATH,
                            terminationMessagePolicy: "File",
                        },
                    ],
                },
            },
        },
    };
}

/** The logins the Job's pod reads (owned by the Job, so the garbage collector removes it with the Job). */
export function rotationSecret(jobUid: string, logins: { user: string; password: string; servicePassword: string }): object {
    return {
        apiVersion: "v1",
        kind: "Secret",
        metadata: {
            name: ROTATION_JOB,
            namespace: CASSANDRA.namespace,
            ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: ROTATION_JOB, uid: jobUid }],
        },
        type: "Opaque",
        stringData: {
            CASSANDRA_USER: logins.user,
            CASSANDRA_PASSWORD: logins.password,
            SERVICE_ROLE_PASSWORD: logins.servicePassword,
        },
    };
}
