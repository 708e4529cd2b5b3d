import type { ControlPlaneConfig, ReleaseOverride } from "../../config/model/schema";
import { CATALOG, serviceAddress, type CatalogEntry } from "../catalog/control-plane";
import type { ReleaseHealth, ValuesContext } from "../catalog/control-plane-values/context";
import { releaseValues } from "../release/declare";
import type { Values } from "../release/entry";
import { installOrder, releaseDependencies } from "./ordering";

/** One release of the control plane as data: what `ControlPlane` declares for it. */
export interface PlannedRelease {
    readonly entry: CatalogEntry;
    readonly namespace: string;
    /** The releases it waits for, by name: its needs and the nearest earlier helmfile.d file. */
    readonly dependencies: readonly string[];
    readonly version: string;
    readonly values: Values;
}

/** The enabled releases of the catalog, in the bundle's order. */
export function enabledReleases(cp: ControlPlaneConfig): CatalogEntry[] {
    return CATALOG.filter((entry) => entry.enabled(cp));
}

/** What the values builders read: the environment, the catalog's facts, the registry and the credentials. */
export function valuesContext(
    cp: ControlPlaneConfig,
    given: Pick<ValuesContext, "imagePullSecrets" | "accountRegistries" | "secrets">,
): ValuesContext {
    const health = new Map<string, ReleaseHealth>();
    for (const entry of enabledReleases(cp)) {
        if (entry.health) health.set(entry.name, { release: entry.name, namespace: entry.namespace(cp), check: entry.health });
    }
    return { cp, address: (release) => serviceAddress(release, cp), health, ...given };
}

/**
 * The control plane's releases in an install order (each after what it waits for), with their
 * versions and values: pure data, so the catalog's conditions, edges and values are checked
 * without running the program.
 */
export function controlPlanePlan(
    cp: ControlPlaneConfig,
    args: {
        readonly chartVersions: Readonly<Record<string, string>>;
        readonly releaseOverrides: Readonly<Record<string, ReleaseOverride>>;
        readonly context: ValuesContext;
    },
): PlannedRelease[] {
    const enabled = enabledReleases(cp);
    const dependencies = releaseDependencies(enabled);
    return installOrder(enabled, dependencies).map((entry) => ({
        entry,
        namespace: entry.namespace(cp),
        dependencies: dependencies.get(entry.name) ?? [],
        version: args.chartVersions[entry.name],
        values: releaseValues(entry, args.context, args.releaseOverrides[entry.name]?.values),
    }));
}
