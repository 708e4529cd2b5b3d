/**
 * The control plane's plan of the dev stack with changes, as data (components/control-plane/plan.ts):
 * the settings parsed as the program parses them, the releases, versions, dependencies and values
 * the program would declare, without running it. Credentials are placeholders: tests of secret
 * values run the program.
 */
import type { Settings } from "../../config/settings";
import { AwsProviders } from "../../components/aws/providers";
import { selectedBundleRelease } from "../../components/bundle/bundle-releases";
import { ownedNamespaces } from "../../components/control-plane/control-plane";
import { controlPlanePlan, valuesContext, type PlannedRelease } from "../../components/control-plane/plan";
import { chartOf } from "../../components/release/declare";
import type { ChartRef } from "../../components/kubernetes/helm-release";
import { resolveClusters } from "../../components/resolve/clusters";
import { controlPlaneArgs } from "../../components/stack/args";
import { devRaw, parse } from "./raw-config";

export interface DevPlan {
    readonly settings: Settings;
    readonly releases: readonly PlannedRelease[];
    /** The release names, sorted. */
    readonly names: readonly string[];
    /** The namespaces the stack owns, sorted. */
    readonly namespaces: readonly string[];
    release(name: string): PlannedRelease;
    /** The release's values (what a whole-program run's release inputs hold, secrets aside). */
    values(name: string): Record<string, any>;
    dependsOn(release: string, on: string): boolean;
    chart(name: string): ChartRef;
}

/** The dev stack with `controlPlane` and other structured keys deep-merged over it, planned. */
export function devPlan(controlPlane: Record<string, unknown> = {}, values: Record<string, unknown> = {}): DevPlan {
    const settings = parse(devRaw({ controlPlane, values }));
    const cp = settings.controlPlane;
    const aws = new AwsProviders();
    // The program's own args (no resource is declared for a stack without EKS).
    const args = controlPlaneArgs(settings, selectedBundleRelease(settings.bundle.release), resolveClusters(settings, aws), aws, undefined);
    const { registry } = args;
    const releases = controlPlanePlan(cp, {
        chartVersions: args.chartVersions,
        releaseOverrides: args.releaseOverrides,
        context: valuesContext(cp, {
            imagePullSecrets: registry.imagePullSecrets,
            accountRegistries: args.accountRegistries,
            secrets: { cassandraPassword: "cassandra-password", sidecarCredential: "sidecar-credential" },
        }),
    });
    const release = (name: string): PlannedRelease => {
        const found = releases.find((r) => r.entry.name === name);
        if (!found) throw new Error(`no release ${name}; have ${releases.map((r) => r.entry.name).join(", ")}`);
        return found;
    };
    return {
        settings,
        releases,
        names: releases.map((r) => r.entry.name).sort(),
        namespaces: ownedNamespaces(cp)
            .map((n) => n.name)
            .sort(),
        release,
        values: (name) => release(name).values as Record<string, any>,
        dependsOn: (name, on) => release(name).dependencies.includes(on),
        chart: (name) => chartOf(release(name).entry, cp, registry),
    };
}

/** Releases whose values differ between two plans. */
export function changedReleases(a: DevPlan, b: DevPlan): string[] {
    const json = (p: DevPlan) => new Map(p.releases.map((r) => [r.entry.name, JSON.stringify(r.values)]));
    const [ja, jb] = [json(a), json(b)];
    return [...ja.keys()].filter((k) => ja.get(k) !== jb.get(k)).sort();
}
