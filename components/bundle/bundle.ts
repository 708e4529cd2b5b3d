import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { ClusterAccess } from "../kubernetes/provider";
import type { BundleRelease } from "./bundle-releases";
import { readInstalledStatefulReleases } from "./installed";
import { RECEIPT, upgradeReceipt, type ReceiptContent } from "./receipt";
import { releaseStates, restartWarnings, type ReleaseGoal, type ReleaseState } from "./restart-warning";
import { ReceiptKey } from "../resources/bundle-receipt-key";

export interface BundleArgs {
    /** The bundle release the stack selects. */
    readonly release: BundleRelease;
    /** The control plane's releases as declared (resources) and as asked for (version and values). */
    readonly controlPlane: {
        readonly releases: Readonly<Record<string, k8s.helm.v3.Release>>;
        readonly goals: Readonly<Record<string, ReleaseGoal>>;
        /** The namespace the receipt goes in (the stack's `nvcf`). */
        readonly namespace: pulumi.Input<string>;
    };
    /** Each GPU cluster's releases, by cluster name then release name. */
    readonly computePlanes: Readonly<Record<string, Readonly<Record<string, k8s.helm.v3.Release>>>>;
    /** The control plane's Kubernetes provider (the receipt lives on its cluster). */
    readonly provider: k8s.Provider;
    /** How that provider reaches the cluster: the preview reads the receipt with it. */
    readonly cluster: ClusterAccess;
    /** Everything the receipt comes after: every release and health gate of every cluster. */
    readonly after: pulumi.Input<pulumi.Resource>[];
}

/** The stack output `upgrade`: what the next update compares with. */
export interface BundleOutputs {
    readonly bundleRelease: string;
    readonly receipt: string;
    /** NATS, OpenBao and Cassandra as deployed: chart version and values digest. */
    readonly statefulReleases: pulumi.Output<Record<string, ReleaseState>>;
}

/**
 * The environment's bundle release: the upgrade receipt, written last, and the warning a plain
 * `pulumi up` gives when it would restart NATS, OpenBao or Cassandra of an installed environment.
 * What is installed comes from the receipt on the cluster, read in previews only.
 */
export class Bundle extends pulumi.ComponentResource {
    /** The receipt ConfigMap in the control plane's `nvcf` namespace: the bundle release installed, for the staged upgrade and `status`. */
    readonly receipt: k8s.core.v1.ConfigMap;
    /** The stack output `upgrade`. */
    readonly outputs: BundleOutputs;

    constructor(name: string, args: BundleArgs, opts?: pulumi.ComponentResourceOptions) {
        super("nvcf:bundle:Bundle", name, {}, opts);
        const versions = (releases: Readonly<Record<string, k8s.helm.v3.Release>>) =>
            pulumi.all(Object.fromEntries(Object.entries(releases).map(([n, r]) => [n, r.version])));
        const content: pulumi.Output<Omit<ReceiptContent, "statefulReleases">> = pulumi
            .all([
                versions(args.controlPlane.releases),
                pulumi.all(Object.fromEntries(Object.entries(args.computePlanes).map(([plane, rels]) => [plane, versions(rels)]))),
            ])
            .apply(([controlPlane, computePlanes]) => ({ bundleRelease: args.release.release, controlPlane, computePlanes }));
        // As deployed: the releases' recorded outputs (an untargeted release keeps its old ones).
        const recorded = Object.fromEntries(
            Object.entries(args.controlPlane.releases).map(([n, r]) => [n, { version: r.version, values: r.values }]),
        );
        const key = new ReceiptKey(`${name}-receipt-key`, { parent: this }).key;
        this.receipt = upgradeReceipt(
            `${name}-receipt`,
            { namespace: args.controlPlane.namespace, content, statefulReleases: releaseStates(recorded, key) },
            { parent: this, provider: args.provider, dependsOn: args.after },
        );

        // The warning belongs to the preview (`pulumi up` previews first). The stack's own
        // checkpoint is not read: the engine may be rewriting it (the file backend then fails the
        // read with "failed to load checkpoint: EOF"), so the receipt on the cluster says what runs.
        if (pulumi.runtime.isDryRun()) {
            const stack = pulumi.getStack();
            pulumi.all([args.cluster.kubeconfig, releaseStates(args.controlPlane.goals, key)]).apply(async ([kubeconfig, desired]) => {
                let installed;
                try {
                    installed = await readInstalledStatefulReleases({
                        ...(kubeconfig === undefined ? {} : { kubeconfig }),
                        ...(args.cluster.context ? { context: args.cluster.context } : {}),
                        source: "the control plane's kubeconfig",
                    });
                } catch (err) {
                    void pulumi.log.warn(
                        `could not read the receipt ${RECEIPT.namespace}/${RECEIPT.name} (${(err as Error).message}), so this preview does not say ` +
                            `whether it restarts NATS, OpenBao or Cassandra; npm run upgrade -- --stack ${stack} --plan lists what would change`,
                        this,
                    );
                    return;
                }
                for (const w of restartWarnings(installed, desired, stack)) {
                    void pulumi.log.warn(w.message, args.controlPlane.releases[w.release]);
                }
            });
        }

        this.outputs = {
            bundleRelease: args.release.release,
            receipt: `${RECEIPT.namespace}/${RECEIPT.name}`,
            statefulReleases: releaseStates(recorded),
        };
        this.registerOutputs(this.outputs);
    }
}
