import type { ComputePlaneConfig } from "../../config/model/compute-plane-schema";
import type { ControlPlaneConfig, ReleaseOverride } from "../../config/model/schema";
import { CATALOG } from "../catalog/control-plane";
import { versionOf } from "../release/declare";
import type { BundleRelease } from "./bundle-releases";
import { NVCA_OPERATOR } from "../catalog/compute-plane";
import type { ComputePlaneVersions } from "../catalog/nvca-operator-values";

export type { ComputePlaneVersions } from "../catalog/nvca-operator-values";

/**
 * The versions a stack installs: its bundle release's, except where a setting pins another
 * (`releases.<name>.version`, an observability release's `version` key in the environment, a
 * compute plane's `nvcaOperator.*`): the runbook's spot upgrade.
 */

/** Each control-plane release's chart version, by release name: a `releases.<name>.version`, else its entry's (components/release/declare.ts). */
export function controlPlaneChartVersions(
    bundle: BundleRelease,
    overrides: Readonly<Record<string, ReleaseOverride>>,
    cp: ControlPlaneConfig,
): Readonly<Record<string, string>> {
    return Object.fromEntries(
        CATALOG.map((entry) => [entry.name, overrides[entry.name]?.version ?? versionOf(entry, cp, bundle.controlPlane.charts)]),
    );
}

export function computePlaneVersions(bundle: BundleRelease, plane: ComputePlaneConfig): ComputePlaneVersions {
    const op = plane.nvcaOperator;
    const { charts, images } = bundle.computePlane;
    return {
        charts: { ...charts, [NVCA_OPERATOR.name]: versionOf(NVCA_OPERATOR, plane, charts) },
        operatorImage: op.imageTag ?? images["nvca-operator"],
        nvcaVersion: op.nvcaVersion ?? images.nvca,
        otelCollectorImage: op.otelCollector.imageTag ?? images["otel-collector"],
    };
}
