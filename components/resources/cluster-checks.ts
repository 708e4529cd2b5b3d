import * as pulumi from "@pulumi/pulumi";
import type { CheckResult } from "../../lib/health/checks";
import type { ClusterChecksArgs } from "../providers/cluster-checks";
import { providerReference } from "./provider-reference";

const provider = providerReference("cluster-checks");

/** Preflight of one cluster: every release there depends on it. */
export class Preflight extends pulumi.dynamic.Resource {
    declare readonly results: pulumi.Output<CheckResult[]>;
    constructor(name: string, args: Omit<ClusterChecksArgs, "kind" | "health" | "pollSeconds">, opts?: pulumi.CustomResourceOptions) {
        super(provider, name, { ...args, kind: "preflight", pollSeconds: 0, results: undefined }, opts, "nvcf", "Preflight");
    }
}

/** The health gate of one cluster: it depends on every release there. */
export class HealthGate extends pulumi.dynamic.Resource {
    declare readonly results: pulumi.Output<CheckResult[]>;
    constructor(name: string, args: Omit<ClusterChecksArgs, "kind" | "preflight">, opts?: pulumi.CustomResourceOptions) {
        super(provider, name, { ...args, kind: "health", results: undefined }, opts, "nvcf", "HealthGate");
    }
}
