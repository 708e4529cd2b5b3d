/**
 * The one shape of every Helm release the program can install: the control plane's, a GPU
 * cluster's (add-ons, the NVCA operator, the SMB CSI driver) and the cluster prerequisites
 * (Envoy Gateway, Kyverno). Everything about a release is in its entry; `declareRelease`
 * (./declare.ts) is the one piece of code that turns an entry into a release.
 *
 * `P` is what the entry's functions read (the plane's settings, or the prerequisite's install
 * settings); `C` is what its values builder reads.
 */

/** Chart values: plain data whose leaves may be secret Outputs. */
export type Values = Record<string, unknown>;

/** A release this one waits for, and why. */
export interface Need {
    readonly release: string;
    readonly why: string;
}

/** Where a release's chart comes from. */
export type ChartSource<P> =
    /** The stack's `nvcf` repository (global.helm.sources) with its chart credentials, or a local directory a setting names. */
    | { readonly kind: "nvcf"; readonly localDirectory?: (p: P) => string | undefined }
    /** A public repository, not the stack's own, unless a setting names a mirror (or the stack's charts are in a local directory). */
    | { readonly kind: "public"; readonly repository: string; readonly mirror: (p: P) => string | undefined }
    /** A local chart directory a setting names, else the repository the chart was pushed to. */
    | {
          readonly kind: "local-or-pushed";
          readonly directory: (p: P) => string | undefined;
          readonly pushedTo: (p: P) => string | undefined;
      }
    /** Exactly what a setting gives: an https repository, an `oci://` reference to the chart, or a local chart directory. */
    | { readonly kind: "setting"; readonly source: (p: P) => string };

/** Where a release's chart version comes from. */
export type VersionSource<P> =
    /** The stack's bundle release (components/bundle/releases), unless `pin` returns another. */
    | { readonly kind: "bundle"; readonly pin?: (p: P) => string | undefined }
    /** A setting the stack must set (it pins every chart that is not NVIDIA's). */
    | { readonly kind: "setting"; readonly version: (p: P) => string };

/** An HTTP endpoint of a Service in the release's namespace. */
export interface ServiceEndpoint {
    readonly service: string;
    readonly port: number;
    readonly path: string;
}

/** How NVCF's UI checks a release (one item of its `controlPlane.components` list). */
export interface HealthCheck {
    /** The component's name in the UI, when it is not the release's. */
    readonly component?: string;
    /** Its namespace, when it is not the release's. */
    readonly namespace?: string;
    readonly endpoints?: readonly ServiceEndpoint[];
    readonly workloads?: readonly { readonly name: string; readonly type: "deployment" | "statefulset" }[];
}

export interface ReleaseEntry<P, C> {
    /** The Helm release name (never changes: the charts' object names derive from it). */
    readonly name: string;
    readonly namespace: (p: P) => string;
    readonly chart: string;
    readonly source: ChartSource<P>;
    readonly version: VersionSource<P>;
    /** The bundle's helmfile.d file it is in, where the bundle has it in one: the staged upgrade's stages follow them, the install order does not. */
    readonly phase?: string;
    /** The releases it waits for; a need on a release that is off is dropped. */
    readonly needs: readonly Need[];
    /** Whether the stack installs it (the bundle's `condition`, or the setting that turns it on). */
    readonly enabled: (p: P) => boolean;
    readonly values: (ctx: C) => Values;
    /** The Service other releases reach it at, in its namespace. */
    readonly service?: { readonly name: string; readonly port: number };
    /** What NVCF's UI checks of it, when the UI lists it. */
    readonly health?: HealthCheck;
    /** Cluster-scoped objects (CRDs, ClusterIssuers, webhooks) in the chart. */
    readonly clusterScoped?: boolean;
    /** Its workloads keep data on persistent volumes that an uninstall would throw away (tables, Raft storage, unseal keys). */
    readonly holdsData?: boolean;
    /** Its routes attach to the stack's Gateways: it waits for them when the stack installs them, and destroy removes it first. */
    readonly attachesToGateways?: boolean;
    /** It writes objects into the other releases' namespaces (ReferenceGrants): it waits for every namespace the stack owns. */
    readonly writesToOtherNamespaces?: boolean;
}

/** The names of an entry's needs. */
export const needNames = (entry: { readonly needs: readonly Need[] }): string[] => entry.needs.map((n) => n.release);
