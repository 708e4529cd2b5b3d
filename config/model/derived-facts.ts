import type { ControlPlaneConfig } from "./schema";
import type { ComputePlaneConfig } from "./compute-plane-schema";

/**
 * Facts derived from several settings, which the catalog, the values builders and the rules
 * share: whether a release is on, which issuer the stack manages.
 */

/** True when the observability profile installs function-autoscaler (control or all). */
export function functionAutoscalerEnabled(cp: ControlPlaneConfig): boolean {
    return cp.observability.profile === "control" || cp.observability.profile === "all";
}

/** The observability bundle's components, each installed by the stack, existing already, or off. */
export type ObservabilityComponent = "prometheusOperatorCrds" | "otelOperator" | "collector" | "targetAllocator" | "discoveryRbac";
export type ComponentMode = "install" | "existing" | "disabled";

/** The observability bundle's default for every unset mode: install with a profile, none without. */
function defaultMode(cp: ControlPlaneConfig): ComponentMode {
    return cp.observability.profile === "disabled" ? "disabled" : "install";
}

/** `observability.components.<component>.mode`, or its default. */
export function componentMode(cp: ControlPlaneConfig, component: ObservabilityComponent): ComponentMode {
    return cp.observability.components[component].mode ?? defaultMode(cp);
}

/** `metricsBackend.mode`, or its default: `install` (VictoriaMetrics) with a profile. */
export function metricsBackendMode(cp: ControlPlaneConfig): ComponentMode {
    return cp.metricsBackend.mode ?? defaultMode(cp);
}

/** True when the stack installs nvcf-pki and its ClusterIssuer (01-dependencies' managed issuer). */
export function managedIssuer(cp: ControlPlaneConfig): boolean {
    const llm = cp.addons.llm;
    if (!llm.enabled || !llm.pki.enabled || llm.pki.mode !== "certManager") return false;
    return llm.pki.clusterIssuer?.enabled ?? (llm.pki.issuerKind === "ClusterIssuer" && llm.pki.issuerName === "nvcf-openbao-pki");
}

/** True when the admin issuer proxy runs and its route on the shared Gateway is on. */
export function adminIssuerRouteOn(cp: ControlPlaneConfig): boolean {
    return cp.adminIssuerProxy.enabled && cp.adminIssuerProxy.gateway.enabled;
}

/**
 * Whether an add-on of the compute-plane bundle runs on a GPU cluster: installed by this stack
 * (`addons.<name>.enabled`) or declared installed outside it (`<name>Installed`). The add-ons'
 * order, NVCA's feature gates and its merge config's extra types all follow from these.
 */
export function kaiSchedulerPresent(plane: ComputePlaneConfig): boolean {
    return plane.addons.kaiScheduler.enabled || plane.kaiSchedulerInstalled;
}

export function groveOperatorPresent(plane: ComputePlaneConfig): boolean {
    return plane.addons.groveOperator.enabled || plane.groveOperatorInstalled;
}

export function dynamoOperatorPresent(plane: ComputePlaneConfig): boolean {
    return plane.addons.dynamoOperator.enabled || plane.dynamoOperatorInstalled;
}

/** Every hostname the routes chart serves (the stack outputs; the rules check each is a DNS name). */
export function routeHostnames(cp: ControlPlaneConfig): Record<string, string> {
    const d = cp.global.domain;
    const r = cp.ingress.gatewayApi.routes;
    const hosts: Record<string, string> = {
        api: `api.${d}`,
        tasks: `tasks.${d}`,
        apiKeys: `api-keys.${d}`,
        invocation: `invocation.${d}`,
        invocationWildcard: `*.invocation.${d}`,
        sis: `sis.${d}`,
        reval: `reval.${d}`,
        // The routes chart serves llm. even with the LLM addon off.
        llm: `llm.${d}`,
    };
    if (r.nvcfApi.grpc.enabled) hosts.apiGrpc = r.nvcfApi.grpc.hostnames[0] ?? `api-grpc.${d}`;
    if (r.nvctApi.grpc.enabled) hosts.tasksGrpc = r.nvctApi.grpc.hostnames[0] ?? `tasks-grpc.${d}`;
    if (cp.addons.vanityGateway.enabled) hosts.vanity = r.vanityGateway.hostnames[0] ?? `vanity.${d}`;
    if (cp.addons.nvcfUi.enabled) hosts.nvcfUi = `nvcf-ui.${d}`;
    return hosts;
}
