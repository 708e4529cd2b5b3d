import type { ConfigProblem } from "../model/errors";
import { PROJECT } from "../model/keys";
import type { Settings } from "../model/keys";
import type { ComputePlaneRule, ControlPlaneRule, SettingsRule } from "./rule";
import { addonDependencies } from "./addon-dependencies";
import { addonInstalledOnce } from "./addon-installed-once";
import { adminIssuerProxyOffNotCombined } from "./admin-issuer-proxy-off-not-combined";
import { adminTokenForRegistration } from "./admin-token-for-registration";
import { autoscalerNeedsStateMetrics } from "./autoscaler-needs-state-metrics";
import { chartSourceUrlOrPath } from "./chart-source-url-or-path";
import { computePlaneReach } from "./compute-plane-reach";
import { derivedHostnamesFitDns } from "./derived-hostnames-fit-dns";
import { disruptionBudgetOneBound } from "./disruption-budget-one-bound";
import { eksClusterByNameAlone } from "./eks-cluster-by-name-alone";
import { featureGatesNeedAddons } from "./feature-gates-need-addons";
import { gatewayInstallForRoutesAndPinned } from "./gateway-install-for-routes-and-pinned";
import { gatewayNamesRequired } from "./gateway-names-required";
import { jwtPluginLifecycleNeedsOpenbao } from "./jwt-plugin-lifecycle-needs-openbao";
import { kyvernoPullSecretMode } from "./kyverno-pull-secret-mode";
import { llmRouterAddress } from "./llm-router-address";
import { llmRouterCertificate } from "./llm-router-certificate";
import { metricsBackendModeAndEndpoints } from "./metrics-backend-mode-and-endpoints";
import { natsTokenWebhookUrl } from "./nats-token-webhook-url";
import { ngcApiKeyRequired } from "./ngc-api-key-required";
import { nvcfUiMigrationsTagFloor } from "./nvcf-ui-migrations-tag-floor";
import { observabilityComponentModes } from "./observability-component-modes";
import { openbaoNeedsNats } from "./openbao-needs-nats";
import { placeholderRepositories } from "./placeholder-repositories";
import { platformSmokeCheck } from "./platform-smoke-check";
import { releaseOverridesKnown } from "./release-overrides-known";
import { reservedPullSecretName } from "./reserved-pull-secret-name";
import { topologyChartSource } from "./topology-chart-source";

export { plaintextSecretProblems } from "./plaintext-secrets";

/**
 * Every rule that spans several keys: the render-time `fail`s and `required`s of NVIDIA's
 * `global.yaml.gotmpl` and helmfiles, the runbooks' "must"s, and what this program needs to
 * reach its clusters and registries. Each check returns every problem, so a user fixes them
 * all in one pass. One rule a file; the lists below give the order their problems come in.
 */

/** The rules under `controlPlane`, whose problems come first. */
const CONTROL_PLANE_RULES: readonly ControlPlaneRule[] = [
    placeholderRepositories,
    chartSourceUrlOrPath,
    natsTokenWebhookUrl,
    openbaoNeedsNats,
    jwtPluginLifecycleNeedsOpenbao,
    adminIssuerProxyOffNotCombined,
    gatewayNamesRequired,
    gatewayInstallForRoutesAndPinned,
    derivedHostnamesFitDns,
    autoscalerNeedsStateMetrics,
    observabilityComponentModes,
    metricsBackendModeAndEndpoints,
    disruptionBudgetOneBound,
    llmRouterAddress,
    llmRouterCertificate,
    nvcfUiMigrationsTagFloor,
];

/** The rules of each compute plane: a plane's problems all come before the next plane's. */
const COMPUTE_PLANE_RULES: readonly ComputePlaneRule[] = [
    computePlaneReach,
    addonInstalledOnce,
    topologyChartSource,
    addonDependencies,
    featureGatesNeedAddons,
];

const computePlanes: SettingsRule = (settings) =>
    settings.computePlanes.flatMap((plane, i) => {
        const key = (path: string) => `${PROJECT}:computePlanes[${i}].${path}`;
        return COMPUTE_PLANE_RULES.flatMap((rule) => rule(plane, key, settings));
    });

/** The rules over the settings as a whole, after the control plane's. */
const SETTINGS_RULES: readonly SettingsRule[] = [
    releaseOverridesKnown,
    eksClusterByNameAlone,
    ngcApiKeyRequired,
    kyvernoPullSecretMode,
    reservedPullSecretName,
    adminTokenForRegistration,
    computePlanes,
    platformSmokeCheck,
];

/** Problems of settings whose keys each parsed, in a stable order. */
export function crossKeyProblems(settings: Settings, releaseNames: readonly string[]): ConfigProblem[] {
    return [
        ...CONTROL_PLANE_RULES.flatMap((rule) => rule(settings.controlPlane)).map(({ path, ...rest }) => ({
            ...rest,
            key: `${PROJECT}:controlPlane.${path}`,
        })),
        ...SETTINGS_RULES.flatMap((rule) => rule(settings, releaseNames)),
    ];
}
