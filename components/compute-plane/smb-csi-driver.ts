import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { ComputePlaneConfig } from "../../config/model/compute-plane-schema";
import { declareRelease, releaseValues, versionOf, type ChartSources } from "../release/declare";
import { SMB_CSI_DRIVER } from "../catalog/compute-plane";

export interface SmbCsiDriverArgs {
    readonly plane: ComputePlaneConfig;
    readonly sources: ChartSources;
    readonly skipAwait: boolean;
}

/** The SMB CSI driver (components/catalog/compute-plane.ts), as a component of its own: its release's URN is under it. */
export class SmbCsiDriver extends pulumi.ComponentResource {
    /** The driver's release. */
    readonly release: k8s.helm.v3.Release;

    constructor(name: string, args: SmbCsiDriverArgs, opts?: pulumi.ComponentResourceOptions) {
        super("nvcf:compute-plane:SmbCsiDriver", name, {}, opts);
        this.release = declareRelease(
            {
                logicalName: `${name}-release`,
                entry: SMB_CSI_DRIVER,
                settings: args.plane,
                namespace: SMB_CSI_DRIVER.namespace(args.plane),
                version: versionOf(SMB_CSI_DRIVER, args.plane, {}),
                values: releaseValues(SMB_CSI_DRIVER, undefined),
                sources: args.sources,
                skipAwait: args.skipAwait,
            },
            // The component's dependsOn (preflight), on the release itself, where it orders the install.
            { parent: this, dependsOn: opts?.dependsOn },
        );
        this.registerOutputs({ status: this.release.status.status });
    }
}
