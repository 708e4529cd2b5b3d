import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { helmRelease, type ChartRef } from "../kubernetes/helm-release";

export interface SmbCsiDriverArgs {
    readonly version: string;
    /** An https chart repository, an `oci://` reference to the chart, or a local chart directory. */
    readonly source: string;
    readonly skipAwait: boolean;
}

/** Where the `csi-driver-smb` chart comes from. */
export function smbChartRef(source: string): ChartRef {
    if (source.startsWith("oci://")) return { chart: source };
    if (/^https?:\/\//.test(source)) return { chart: "csi-driver-smb", repositoryOpts: { repo: source } };
    return { chart: source };
}

/**
 * The SMB CSI driver NVCA's shared storage needs (model cache, Helm shared storage): release
 * `csi-driver-smb` in `kube-system`, with no custom values, as the runbook installs it.
 */
export class SmbCsiDriver extends pulumi.ComponentResource {
    readonly release: k8s.helm.v3.Release;

    constructor(name: string, args: SmbCsiDriverArgs, opts?: pulumi.ComponentResourceOptions) {
        super("nvcf:compute-plane:SmbCsiDriver", name, {}, opts);
        this.release = helmRelease(
            `${name}-release`,
            {
                name: "csi-driver-smb",
                namespace: "kube-system",
                chart: smbChartRef(args.source),
                version: args.version,
                values: {},
                skipAwait: args.skipAwait,
            },
            // The component's dependsOn (preflight), on the release itself, where it orders the install.
            { parent: this, dependsOn: opts?.dependsOn },
        );
        this.registerOutputs({ status: this.release.status.status });
    }
}
