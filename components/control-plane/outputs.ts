import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { ControlPlaneConfig } from "../../config/model/schema";
import type { CatalogEntry } from "../catalog/control-plane";
import { routeHostnames } from "../../config/model/derived-facts";
import type { Namespaces } from "../kubernetes/namespaces";
import type { SmokeCheck } from "../resources/smoke-check";

export interface ReleaseOutput {
    readonly name: pulumi.Output<string>;
    readonly namespace: pulumi.Output<string>;
    readonly chart: string;
    readonly version: pulumi.Output<string>;
    readonly status: pulumi.Output<string>;
}

/** The last smoke run as the stack output shows it: each test hook's phase, the platform check's steps. */
export interface SmokeOutput {
    readonly helmTests: Readonly<Record<string, string>>;
    readonly platform?: string;
}

/** The stack outputs the control plane reports: domain, route hostnames, namespaces, releases, the last smoke run. */
export interface ControlPlaneOutputs {
    readonly domain: string;
    readonly routes: Readonly<Record<string, string>>;
    readonly namespaces: readonly string[];
    readonly releases: Readonly<Record<string, ReleaseOutput>>;
    readonly smoke?: pulumi.Output<SmokeOutput>;
}

export function controlPlaneOutputs(
    cp: ControlPlaneConfig,
    enabled: readonly CatalogEntry[],
    namespaces: Namespaces,
    releases: Readonly<Record<string, k8s.helm.v3.Release>>,
    smokeCheck: SmokeCheck | undefined,
): ControlPlaneOutputs {
    return {
        domain: cp.global.domain,
        routes: routeHostnames(cp),
        namespaces: Object.keys(namespaces.byName),
        releases: Object.fromEntries(
            Object.entries(releases).map(([releaseName, release]) => [
                releaseName,
                {
                    name: release.status.name,
                    namespace: release.status.namespace,
                    chart: enabled.find((e) => e.name === releaseName)?.chart ?? "",
                    version: release.status.version,
                    status: release.status.status,
                },
            ]),
        ),
        ...(smokeCheck ? { smoke: smokeOutput(smokeCheck) } : {}),
    };
}

function smokeOutput(check: SmokeCheck): pulumi.Output<SmokeOutput> {
    return pulumi.all([check.helmTestRuns, check.platformRun]).apply(([runs, platform]) => ({
        helmTests: Object.fromEntries((runs ?? []).map((r) => [`${r.release}/${r.hook}`, `${r.phase} (revision ${r.revision})`])),
        ...(platform ? { platform: platform.ok ? `passed: ${platform.steps.map((s) => s.step).join(", ")}` : "failed" } : {}),
    }));
}
