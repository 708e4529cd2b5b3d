import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

/**
 * The upgrade receipt: which bundle release the environment runs and each release's chart
 * version, in the ConfigMap NVIDIA's receipt stage writes (`nvcf-upgrade-receipt` in `nvcf`).
 * The stack owns it: `pulumi up` writes it once every release and health gate is done, and
 * `npm run upgrade` only in its last stage, so a change by hand shows as drift on refresh.
 */
export const RECEIPT = { name: "nvcf-upgrade-receipt", namespace: "nvcf" } as const;

/** What the receipt says; versions by release name, the compute planes' by cluster name. */
export interface ReceiptContent {
    readonly bundleRelease: string;
    readonly controlPlane: Readonly<Record<string, string>>;
    readonly computePlanes: Readonly<Record<string, Readonly<Record<string, string>>>>;
    /**
     * NATS, OpenBao and Cassandra as this update gave them: chart version and a keyed digest of
     * their values (the key stays in the stack's state), what the next preview's restart warning
     * compares with. Absent in receipts written before it was kept.
     */
    readonly statefulReleases?: Readonly<Record<string, { readonly version: string; readonly values: string }>>;
}

/** Keys sorted, so the same content is the same ConfigMap. */
function sortedJson(value: Readonly<Record<string, unknown>>): string {
    return JSON.stringify(value, (_key, v: unknown) =>
        v && typeof v === "object" && !Array.isArray(v)
            ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
            : v,
    );
}

/** The ConfigMap's data: the release name in the clear, the versions as JSON (`kubectl get` shows them as they are). */
export function receiptData(content: ReceiptContent): Record<string, string> {
    return {
        bundleRelease: content.bundleRelease,
        controlPlane: sortedJson(content.controlPlane),
        computePlanes: sortedJson(content.computePlanes),
        ...(content.statefulReleases ? { statefulReleases: sortedJson(content.statefulReleases) } : {}),
    };
}

/** The receipt read back from a ConfigMap's data; undefined when it is not one this program wrote. */
export function parseReceipt(data: Readonly<Record<string, string>> | undefined): ReceiptContent | undefined {
    if (!data?.bundleRelease) return undefined;
    try {
        const controlPlane = JSON.parse(data.controlPlane ?? "{}") as unknown;
        const computePlanes = JSON.parse(data.computePlanes ?? "{}") as unknown;
        const stateful = data.statefulReleases === undefined ? undefined : (JSON.parse(data.statefulReleases) as unknown);
        const isMap = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
        if (!isMap(controlPlane) || !isMap(computePlanes)) return undefined;
        const isState = (v: unknown) => isMap(v) && typeof v.version === "string" && typeof v.values === "string";
        // A malformed stateful part costs only the restart warning's values check, not the receipt.
        const statefulReleases = isMap(stateful) && Object.values(stateful).every(isState) ? stateful : undefined;
        return {
            bundleRelease: data.bundleRelease,
            controlPlane: controlPlane as Record<string, string>,
            computePlanes: computePlanes as Record<string, Record<string, string>>,
            ...(statefulReleases ? { statefulReleases: statefulReleases as Record<string, { version: string; values: string }> } : {}),
        };
    } catch {
        return undefined;
    }
}

export interface UpgradeReceiptArgs {
    readonly namespace: pulumi.Input<string>;
    readonly content: pulumi.Input<Omit<ReceiptContent, "statefulReleases">>;
    /** Keyed digests: secret only through their key, so shown in the clear and a values change is visible in the diff. */
    readonly statefulReleases: pulumi.Input<NonNullable<ReceiptContent["statefulReleases"]>>;
}

/** The receipt ConfigMap; its dependencies (every release and gate) make it the last thing `up` writes. */
export function upgradeReceipt(name: string, args: UpgradeReceiptArgs, opts: pulumi.CustomResourceOptions): k8s.core.v1.ConfigMap {
    const data = pulumi.output(args.content).apply((c) => receiptData(c));
    return new k8s.core.v1.ConfigMap(
        name,
        {
            metadata: {
                name: RECEIPT.name,
                namespace: args.namespace,
                labels: { "app.kubernetes.io/managed-by": "nvcf-self-managed" },
                annotations: {
                    "nvcf.nvidia.com/receipt":
                        "written by pulumi up and npm run upgrade once every stage passed; do not edit (a stale receipt is corrected by rerunning the upgrade)",
                },
            },
            data: {
                bundleRelease: data.bundleRelease,
                controlPlane: data.controlPlane,
                computePlanes: data.computePlanes,
                statefulReleases: pulumi.unsecret(pulumi.output(args.statefulReleases).apply((r) => sortedJson(r))),
            },
        },
        opts,
    );
}
