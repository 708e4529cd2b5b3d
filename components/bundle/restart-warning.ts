import * as crypto from "node:crypto";
import * as pulumi from "@pulumi/pulumi";

/**
 * The releases whose restart loses work or availability on a live environment: NATS drops
 * in-flight requests, OpenBao's OnDelete members keep the old template until replaced one at a
 * time, and Cassandra with one replica takes the API down while it restarts. A plain `pulumi up`
 * that changes one of them on an installed environment is allowed, with a warning that points at
 * `npm run upgrade`, which drains NATS and orders the stages first.
 */
export const STATEFUL_RELEASES = {
    nats: "it restarts NATS, dropping requests in flight unless the work was drained first",
    "openbao-server": "it changes OpenBao's pod template, which its OnDelete members only take when replaced one at a time",
    cassandra: "it restarts Cassandra, and with one replica the control-plane API is unavailable for about 1-2 minutes",
} as const;
export type StatefulRelease = keyof typeof STATEFUL_RELEASES;

/** What one of them is given, or was given last time: its chart version and values. */
export interface ReleaseGoal {
    readonly version: pulumi.Input<string>;
    readonly values: pulumi.Input<Record<string, unknown>>;
}

/**
 * A digest of a release's values, the same whether taken from the program's inputs or from the
 * release's recorded outputs: keys sorted, and nulls dropped (the provider drops them). With a
 * key it is an HMAC, for the receipt: Cassandra's values carry its password, and a plain digest
 * in a ConfigMap would let anyone who reads it test guesses.
 */
export function valuesFingerprint(values: unknown, key?: string): string {
    const canonical = (v: unknown): unknown => {
        if (Array.isArray(v)) return v.map(canonical);
        if (v && typeof v === "object") {
            return Object.fromEntries(
                Object.entries(v as Record<string, unknown>)
                    .filter(([, x]) => x !== null && x !== undefined)
                    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
                    .map(([k, x]) => [k, canonical(x)]),
            );
        }
        return v;
    };
    const hash = key === undefined ? crypto.createHash("sha256") : crypto.createHmac("sha256", key);
    return hash.update(JSON.stringify(canonical(values))).digest("hex");
}

/** A stateful release as one update sees it: chart version and values digest. */
export interface ReleaseState {
    readonly version: string;
    readonly values: string;
}

/** As installed: the values digest is unknown when the receipt predates it. */
export interface InstalledState {
    readonly version: string;
    readonly values?: string;
}

/** The stateful releases among these, by name (secret when their values are); digests keyed with `key` when given. */
export function releaseStates(
    goals: Readonly<Record<string, ReleaseGoal>>,
    key?: pulumi.Input<string>,
): pulumi.Output<Record<string, ReleaseState>> {
    const names = Object.keys(STATEFUL_RELEASES).filter((n) => goals[n]);
    return pulumi
        .all([key, pulumi.all(names.map((n) => pulumi.all([goals[n].version, goals[n].values])))])
        .apply(([k, pairs]) =>
            Object.fromEntries(pairs.map(([version, values], i) => [names[i], { version, values: valuesFingerprint(values, k) }])),
        );
}

/** A version Helm resolves itself (a range): no exact version to compare with. */
const isRange = (v: string) => /[\^~*<>=|\s]|(^|\.)[xX](\.|$)/.test(v);
const bare = (v: string) => v.replace(/^v/, "");

/**
 * One warning per stateful release that the installed environment has (as the last update
 * recorded it) and whose chart version or values this update changes. Pure, for the tests.
 */
export function restartWarnings(
    installed: Readonly<Record<string, InstalledState>> | undefined,
    desired: Readonly<Record<string, ReleaseState>>,
    stack: string,
): { release: StatefulRelease; message: string }[] {
    if (!installed) return [];
    return (Object.keys(STATEFUL_RELEASES) as StatefulRelease[]).flatMap((release) => {
        const before = installed[release];
        const after = desired[release];
        if (!before || !after) return [];
        const changes = [
            ...(!isRange(after.version) && bare(before.version) !== bare(after.version)
                ? [`chart ${before.version} -> ${after.version}`]
                : []),
            ...(before.values !== undefined && before.values !== after.values ? ["its values"] : []),
        ];
        if (changes.length === 0) return [];
        return [
            {
                release,
                message:
                    `this update changes ${release} (${changes.join(", ")}) on an installed environment: ${STATEFUL_RELEASES[release]}. ` +
                    `Apply it with npm run upgrade -- --stack ${stack}, which drains NATS first and runs the runbook's stages in order (docs/operations.md, Upgrade).`,
            },
        ];
    });
}
