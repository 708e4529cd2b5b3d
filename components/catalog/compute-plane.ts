import type { ComputePlaneConfig } from "../../config/model/compute-plane-schema";
import type { ReleaseEntry } from "../release/entry";
import { ADDONS } from "./compute-plane-addons";
import { nvcaOperatorValues, type NvcaValuesArgs } from "./nvca-operator-values";
import { NVCA_OPERATOR_NAMESPACE } from "../../lib/contracts/nvca";

export { NVCA_OPERATOR_NAMESPACE } from "../../lib/contracts/nvca";

/** The NVCA operator: the compute-plane bundle's `02-nvca` file, after every add-on (its gates and merge config name them). */
export const NVCA_OPERATOR: ReleaseEntry<ComputePlaneConfig, NvcaValuesArgs> = {
    name: "nvca-operator",
    namespace: () => NVCA_OPERATOR_NAMESPACE,
    chart: "helm-nvca-operator",
    source: { kind: "nvcf" },
    version: { kind: "bundle", pin: (plane) => plane.nvcaOperator.chartVersion },
    needs: [],
    enabled: () => true,
    values: nvcaOperatorValues,
};

/**
 * The SMB CSI driver NVCA's shared storage needs (model cache, Helm shared storage): release
 * `csi-driver-smb` in `kube-system`, with no custom values, as the runbook installs it.
 */
export const SMB_CSI_DRIVER: ReleaseEntry<ComputePlaneConfig, unknown> = {
    name: "csi-driver-smb",
    namespace: () => "kube-system",
    chart: "csi-driver-smb",
    source: { kind: "setting", source: (plane) => plane.smbCsiDriver.source },
    version: { kind: "setting", version: (plane) => plane.smbCsiDriver.version },
    needs: [],
    enabled: () => true,
    values: () => ({}),
};

/** The releases whose chart versions a bundle release pins for every GPU cluster. */
export const BUNDLED_COMPUTE_PLANE_RELEASES: readonly string[] = [...ADDONS.map((e) => e.name), NVCA_OPERATOR.name];
