import type { ComputePlaneConfig } from "../../config/compute-plane-schema";
import type { ControlPlaneConfig, ReleaseOverride } from "../../config/schema";
import { BUNDLE_BASE } from "../../config/bundle-base";
import type { Plain } from "../../config/deep-merge";
import { CATALOG } from "../control-plane/catalog";
import { NVCA_OPERATOR_RELEASE, type BundleRelease } from "./bundle-releases";

/**
 * The versions a stack installs: its bundle release's, except where a setting pins another
 * (`releases.<name>.version`, an observability release's `version` key in the environment, a
 * compute plane's `nvcaOperator.*`): the runbook's spot upgrade.
 */

/** Each control-plane release's chart version, by release name. */
export function controlPlaneChartVersions(
    bundle: BundleRelease,
    overrides: Readonly<Record<string, ReleaseOverride>>,
    cp: ControlPlaneConfig,
): Readonly<Record<string, string>> {
    return Object.fromEntries(
        Object.entries(bundle.controlPlane.charts).map(([name, v]) => [name, overrides[name]?.version ?? environmentPin(name, cp) ?? v]),
    );
}

/**
 * An observability release's `version` key, when the environment sets it. base.yaml's default is
 * the pinned bundle's own version and every environment is merged over it, so only a value that
 * differs from it is the user's pin; otherwise the selected bundle release decides.
 */
function environmentPin(release: string, cp: ControlPlaneConfig): string | undefined {
    const key = CATALOG.find((e) => e.name === release)?.environmentVersion;
    if (!key) return undefined;
    const given = cp[key].version;
    return given !== (BUNDLE_BASE[key] as Plain).version ? given : undefined;
}

/** What one GPU cluster installs: each release's chart version and the NVCA images. */
export interface ComputePlaneVersions {
    /** The add-ons' and the NVCA operator's chart versions, by release name. */
    readonly charts: Readonly<Record<string, string>>;
    readonly operatorImage: string;
    /** The NVCA agent the operator deploys (`selfManaged.nvcaVersion`). */
    readonly nvcaVersion: string;
    readonly otelCollectorImage: string;
}

export function computePlaneVersions(bundle: BundleRelease, plane: ComputePlaneConfig): ComputePlaneVersions {
    const op = plane.nvcaOperator;
    const { charts, images } = bundle.computePlane;
    return {
        charts: { ...charts, [NVCA_OPERATOR_RELEASE]: op.chartVersion ?? charts[NVCA_OPERATOR_RELEASE] },
        operatorImage: op.imageTag ?? images["nvca-operator"],
        nvcaVersion: op.nvcaVersion ?? images.nvca,
        otelCollectorImage: op.otelCollector.imageTag ?? images["otel-collector"],
    };
}
