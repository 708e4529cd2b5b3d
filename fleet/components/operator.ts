import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { helmRelease } from "../../components/kubernetes/helm-release";
import { OPERATOR_CHART } from "../settings/upstream";

export interface OperatorArgs {
    /** The namespace it runs in (the fleet's Namespace resource when the fleet creates it). */
    readonly namespace: pulumi.Input<string>;
}

/**
 * The Pulumi Kubernetes Operator, from its own Helm chart at the pinned version: its controller,
 * its RBAC and, from the chart's crds/ folder, the Stack, Program, Workspace and Update CRDs.
 * Helm installs crds/ on the first install only and never upgrades them, which is why a move to
 * another chart version is its own step (docs/fleets.md, Upgrading the operator).
 */
export class Operator extends pulumi.ComponentResource {
    /** What every Stack waits for: its CRD comes with this release. */
    readonly release: k8s.helm.v3.Release;

    constructor(name: string, args: OperatorArgs, opts?: pulumi.ComponentResourceOptions) {
        super("nvcf:fleet:Operator", name, {}, opts);
        this.release = helmRelease(
            name,
            {
                name: OPERATOR_CHART.releaseName,
                namespace: args.namespace,
                chart: { chart: OPERATOR_CHART.chart },
                version: OPERATOR_CHART.version,
                values: { image: OPERATOR_CHART.image },
                skipAwait: false,
            },
            { parent: this },
        );
        this.registerOutputs({ release: this.release.name, version: OPERATOR_CHART.version });
    }
}
