import type { ComputePlaneConfig } from "../../config/compute-plane-schema";
import type { ReleaseOverride } from "../../config/schema";
import { NVCA_OPERATOR_RELEASE, type BundleRelease } from "./bundle-releases";

/**
 * The versions a stack installs: its bundle release's, except where a setting pins another
 * (`releases.<name>.version`, a compute plane's `nvcaOperator.*`): the runbook's spot upgrade.
 */

/** Each control-plane release's chart version, by release name. */
export function controlPlaneChartVersions(
    bundle: BundleRelease,
    overrides: Readonly<Record<string, ReleaseOverride>>,
): Readonly<Record<string, string>> {
    return Object.fromEntries(Object.entries(bundle.controlPlane.charts).map(([name, v]) => [name, overrides[name]?.version ?? v]));
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
