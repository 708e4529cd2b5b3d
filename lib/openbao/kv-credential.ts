import type { OpenBaoMembers } from "./members";
import type { KvTarget } from "./contract";

/** A kv-v2 secret's current version: its fields and when that version was written. */
export interface KvVersion {
    readonly data: Readonly<Record<string, unknown>>;
    /** `metadata.created_time` of the version (RFC 3339), as OpenBao's clock had it. */
    readonly createdTime: string;
    readonly version: number;
    /** `metadata.custom_metadata` of the secret (null in OpenBao's answer when unset). */
    readonly customMetadata?: Readonly<Record<string, string>>;
}

/** Where a kv-v2 secret is read and written: `<mount>/data/<key>`. */
export const kvDataPath = (t: KvTarget): string => `${t.mount}/data/${t.key}`;

/** `<mount>/<key>`, the name `bao kv put` takes, for messages. */
export const kvName = (t: KvTarget): string => `${t.mount}/${t.key}`;

/**
 * The current version of a kv-v2 secret (`GET <mount>/data/<key>`: `data.data`, `data.metadata`),
 * or undefined when it has none (404, or a latest version that was deleted: `data.data` null).
 */
export async function readKv(members: OpenBaoMembers, pod: string, t: KvTarget): Promise<KvVersion | undefined> {
    const body = (await members.read(pod, kvDataPath(t))) as
        { data?: { data?: unknown; metadata?: { created_time?: unknown; version?: unknown; custom_metadata?: unknown } } } | undefined;
    if (body === undefined) return undefined;
    const data = body.data?.data;
    const meta = body.data?.metadata;
    if (data === null) return undefined;
    if (!data || typeof data !== "object" || typeof meta?.created_time !== "string" || typeof meta.version !== "number") {
        throw new Error(`${pod}: GET /v1/${kvDataPath(t)} answered without kv-v2's documented data.data and data.metadata`);
    }
    const custom = meta.custom_metadata;
    return {
        data: data as Record<string, unknown>,
        createdTime: meta.created_time,
        version: meta.version,
        ...(custom && typeof custom === "object" ? { customMetadata: custom as Record<string, string> } : {}),
    };
}

/** Writes a new version holding exactly `data` (`POST <mount>/data/<key>` `{"data": {...}}`, as `bao kv put` does). */
export async function writeKv(members: OpenBaoMembers, pod: string, t: KvTarget, data: Readonly<Record<string, string>>): Promise<void> {
    await members.write(pod, kvDataPath(t), { data });
}

/**
 * Writes `fields` over the version read, every other field kept, as a check-and-set (a write by
 * someone else since fails it: OpenBao answers 400), then reads it back. Returns the new version,
 * or undefined when it held them already.
 */
export async function mergeKv(
    members: OpenBaoMembers,
    pod: string,
    t: KvTarget,
    stored: KvVersion,
    fields: Readonly<Record<string, string>>,
): Promise<KvVersion | undefined> {
    const holdsFields = (v: KvVersion | undefined) => v !== undefined && Object.entries(fields).every(([k, x]) => v.data[k] === x);
    if (holdsFields(stored)) return undefined;
    await members.write(pod, kvDataPath(t), { options: { cas: stored.version }, data: { ...stored.data, ...fields } });
    const after = await readKv(members, pod, t);
    if (!holdsFields(after)) throw new Error(`${kvName(t)} read back does not hold what was written`);
    return after;
}

/** The version written last of those given (OpenBao's `created_time`), which the readers' pods must have started after. */
export function latestVersion(versions: readonly (KvVersion | undefined)[]): KvVersion | undefined {
    let latest: KvVersion | undefined;
    for (const v of versions) if (v && (!latest || Date.parse(v.createdTime) > Date.parse(latest.createdTime))) latest = v;
    return latest;
}

/** Whether a stored version holds exactly the declared fields. */
export function holds(stored: KvVersion | undefined, data: Readonly<Record<string, string>>): boolean {
    if (!stored) return false;
    const keys = Object.keys(stored.data);
    return keys.length === Object.keys(data).length && keys.every((k) => stored.data[k] === data[k]);
}

/**
 * What is wrong with a raw docker auth string, base64("<user>:<key>"), or undefined when it is
 * one. nvcf-api drops the value verbatim into the `auth` field of the dockerconfig it builds, so
 * a dockerconfigjson (or anything else) makes every worker's sidecar pull fail with 403.
 */
export function dockerAuthProblem(value: string): string | undefined {
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) return "it is not base64";
    const decoded = Buffer.from(value, "base64").toString("utf8");
    if (decoded.trimStart().startsWith("{")) return "it is base64 of a JSON document (a dockerconfigjson?), not of <user>:<key>";
    const colon = decoded.indexOf(":");
    if (colon <= 0 || colon === decoded.length - 1) return "it does not decode to <user>:<key>";
    return undefined;
}
