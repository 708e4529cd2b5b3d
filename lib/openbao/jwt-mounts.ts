import { JWT_PLUGIN, OPENBAO_API } from "./contract";
import type { OpenBaoMembers } from "./members";

/** One mount of the JWT plugin, as `GET /v1/sys/mounts` (`bao secrets list -detailed`) describes it. */
export interface JwtMount {
    readonly path: string;
    readonly uuid: string;
    /** The catalog version the mount is pinned to; "" when it is not pinned. */
    readonly pluginVersion: string;
    /**
     * What the mount runs now: the plugin version and its binary's SHA-256. The version is "" for
     * a plugin registered without one, as the pinned chart's deploy.sh registers the JWT plugin.
     */
    readonly runningVersion: string;
    readonly runningSha256: string;
}

/** The JWT mounts before OpenBao changes: captured once, then kept for every later check. */
export interface JwtBaseline {
    readonly capturedAt: string;
    /** OpenBao was not installed yet: every mount found later is a new one. */
    readonly newInstall: boolean;
    readonly mounts: JwtMount[];
}

/** A catalog entry of the JWT plugin (`bao plugin info [-version=<v>] secret vault-plugin-secrets-jwt`); version "" when unversioned. */
export interface JwtCatalogEntry {
    readonly version: string;
    readonly sha256: string;
}

/** What a passing check found, for the resource's outputs and the upgrade's record. */
export interface JwtMountReport {
    /** Existing mounts, each still on its version and SHA. */
    readonly kept: string[];
    /** Mounts made since the baseline, each on the target catalog entry. */
    readonly added: string[];
    readonly target?: JwtCatalogEntry;
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const short = (sha: string) => (sha ? sha.slice(0, 12) : "none");
const version = (v: string) => v || "an unversioned plugin";

/** The JWT plugin's mounts in a `GET /v1/sys/mounts` answer (its `data`, or the legacy top level). */
export function jwtMounts(answer: unknown): JwtMount[] {
    const body = (answer ?? {}) as Record<string, unknown>;
    const table = (body.data && typeof body.data === "object" ? body.data : body) as Record<string, unknown>;
    return Object.entries(table)
        .filter(([, m]) => m !== null && typeof m === "object" && (m as Record<string, unknown>).type === JWT_PLUGIN)
        .map(([path, m]) => {
            const mount = m as Record<string, unknown>;
            return {
                path,
                uuid: str(mount.uuid),
                pluginVersion: str(mount.plugin_version),
                runningVersion: str(mount.running_plugin_version),
                runningSha256: str(mount.running_sha256),
            };
        })
        .sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * Every mount says what binary it runs, and runs what it is pinned to (no plugin transition left
 * half done). An unversioned plugin runs with version "": its SHA-256 is what identifies it.
 */
export function metadataProblems(mounts: readonly JwtMount[]): string[] {
    const problems: string[] = [];
    for (const m of mounts) {
        if (!m.runningSha256) {
            problems.push(`mount ${m.path} has no running SHA-256 (missing metadata)`);
        } else if (m.pluginVersion && m.pluginVersion !== m.runningVersion) {
            problems.push(`mount ${m.path} is pinned to ${m.pluginVersion} but runs ${m.runningVersion} (an incomplete plugin transition)`);
        }
    }
    return problems;
}

/**
 * The runbook's JWT mount check: metadata present, every mount of the baseline still there on
 * its plugin version and SHA-256, every mount made since on the target catalog entry.
 */
export function mountProblems(baseline: JwtBaseline, current: readonly JwtMount[], target: JwtCatalogEntry | undefined): string[] {
    const problems = metadataProblems(current);
    const now = new Map(current.map((m) => [m.path, m]));
    for (const before of baseline.mounts) {
        const after = now.get(before.path);
        if (!after) {
            problems.push(`mount ${before.path} of the baseline is gone`);
            continue;
        }
        if (after.uuid && before.uuid && after.uuid !== before.uuid)
            problems.push(`mount ${before.path} is another mount than the baseline's (its UUID changed)`);
        if (after.runningVersion !== before.runningVersion || after.runningSha256 !== before.runningSha256) {
            problems.push(
                `mount ${before.path} ran ${version(before.runningVersion)} (SHA-256 ${short(before.runningSha256)}) and now runs ` +
                    `${version(after.runningVersion)} (SHA-256 ${short(after.runningSha256)}); existing mounts keep their plugin`,
            );
        }
    }
    const known = new Set(baseline.mounts.map((m) => m.path));
    for (const added of current.filter((m) => !known.has(m.path))) {
        if (!target) {
            problems.push(`mount ${added.path} is new, and the catalog has no ${JWT_PLUGIN} entry to check it against`);
        } else if (added.runningVersion !== target.version || added.runningSha256 !== target.sha256) {
            problems.push(
                `mount ${added.path} is new but runs ${version(added.runningVersion)} (SHA-256 ${short(added.runningSha256)}), ` +
                    `not the target catalog entry ${version(target.version)} (SHA-256 ${short(target.sha256)})`,
            );
        }
    }
    return problems;
}

/** The JWT plugin's mounts, read from one (unsealed) member. */
export async function readJwtMounts(members: OpenBaoMembers, pod: string): Promise<JwtMount[]> {
    return jwtMounts(await members.read(pod, OPENBAO_API.mounts));
}

/**
 * The catalog entry new mounts use: the newest registered version of the JWT plugin, else its
 * unversioned entry (how the pinned chart registers it, without -version).
 */
export async function targetCatalogEntry(members: OpenBaoMembers, pod: string): Promise<JwtCatalogEntry | undefined> {
    const catalog = (await members.read(pod, OPENBAO_API.pluginCatalog)) as { data?: { detailed?: unknown } } | undefined;
    const detailed = Array.isArray(catalog?.data?.detailed) ? (catalog.data.detailed as Record<string, unknown>[]) : [];
    const entries = detailed.filter((e) => e.name === JWT_PLUGIN && e.type === "secret" && e.builtin !== true);
    const versions = entries
        .map((e) => str(e.version))
        .filter(Boolean)
        .sort(compareVersions);
    const newest = versions[versions.length - 1];
    if (!newest && entries.length === 0) return undefined;
    const query = newest ? `?version=${encodeURIComponent(newest)}` : "";
    const info = (await members.read(pod, `${OPENBAO_API.pluginCatalog}/secret/${JWT_PLUGIN}${query}`)) as
        { data?: { sha256?: unknown; version?: unknown } } | undefined;
    const sha256 = str(info?.data?.sha256);
    if (!sha256) throw new Error(`${pod}: the catalog entry ${JWT_PLUGIN} ${newest ?? "(unversioned)"} has no SHA-256`);
    return { version: str(info?.data?.version) || (newest ?? ""), sha256 };
}

/**
 * Captures the baseline before OpenBao changes (`pod` undefined: not installed yet, so every
 * mount found later is new). Stops on missing metadata or a half-done plugin transition, as the
 * runbook does: the check after the change needs to know what each mount runs.
 */
export async function captureJwtBaseline(members: OpenBaoMembers, pod: string | undefined, now = new Date()): Promise<JwtBaseline> {
    if (!pod) return { capturedAt: now.toISOString(), newInstall: true, mounts: [] };
    const mounts = await readJwtMounts(members, pod);
    const problems = metadataProblems(mounts);
    if (problems.length > 0) {
        throw new Error(
            `the JWT mounts cannot be the baseline of the plugin lifecycle, so OpenBao was not changed: ${problems.join("; ")}. ` +
                "Finish or repair the plugin migration first (NVIDIA's OpenBao JWT plugin upgrade runbook); do not rewrite a SHA-256 or bypass the hooks",
        );
    }
    return { capturedAt: now.toISOString(), newInstall: false, mounts };
}

/** The check against the kept baseline, on the live mounts and catalog; throws naming every problem. */
export async function verifyJwtMounts(members: OpenBaoMembers, pod: string, baseline: JwtBaseline): Promise<JwtMountReport> {
    const current = await readJwtMounts(members, pod);
    const known = new Set(baseline.mounts.map((m) => m.path));
    const added = current.filter((m) => !known.has(m.path));
    const target = added.length > 0 ? await targetCatalogEntry(members, pod) : undefined;
    const problems = mountProblems(baseline, current, target);
    if (problems.length > 0) {
        throw new Error(
            `the JWT mount check against the baseline of ${baseline.capturedAt} failed: ${problems.join("; ")}. ` +
                "Keep the plugin binaries the mounts ran, and repair the mounts with NVIDIA's OpenBao JWT plugin upgrade runbook " +
                "before OpenBao changes again",
        );
    }
    return { kept: baseline.mounts.map((m) => m.path), added: added.map((m) => m.path), ...(target ? { target } : {}) };
}

/** Plugin versions ("v1.4.1") by their numbers; anything else after them, by text. */
function compareVersions(a: string, b: string): number {
    const parts = (v: string) =>
        v
            .replace(/^v/, "")
            .split(/[.+-]/)
            .map((p) => (/^\d+$/.test(p) ? Number(p) : NaN));
    const [pa, pb] = [parts(a), parts(b)];
    for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
        const [x, y] = [pa[i] ?? 0, pb[i] ?? 0];
        if (Number.isNaN(x) || Number.isNaN(y)) return a.localeCompare(b);
        if (x !== y) return x - y;
    }
    return 0;
}
