import type { ControlPlaneRule } from "./rule";
import { componentMode, functionAutoscalerEnabled, metricsBackendMode, type ObservabilityComponent } from "../model/derived-facts";

/** The observability bundle's rules between its components' modes, with its messages. */
export const observabilityComponentModes: ControlPlaneRule = (cp) => {
    // Without a profile the bundle never reads the observability bundle's keys.
    if (cp.observability.profile === "disabled") return [];
    const mode = (c: ObservabilityComponent) => componentMode(cp, c);
    const path = (c: ObservabilityComponent) => `observability.components.${c}.mode`;
    const collectorInstalled = mode("collector") === "install";
    const backend = metricsBackendMode(cp);
    const rules: [boolean, string, string][] = [
        [
            collectorInstalled && mode("otelOperator") === "disabled",
            path("otelOperator"),
            "observability.components.otelOperator.mode cannot be disabled when the collector is installed; use existing for a customer-managed operator",
        ],
        [
            mode("prometheusOperatorCrds") === "disabled",
            path("prometheusOperatorCrds"),
            "observability.components.prometheusOperatorCrds.mode cannot be disabled for an enabled profile because default monitors require the APIs; use existing for customer-managed CRDs",
        ],
        [
            collectorInstalled && backend === "disabled",
            "metricsBackend.mode",
            "metricsBackend.mode cannot be disabled when the collector is installed; use existing for an external backend",
        ],
        [
            functionAutoscalerEnabled(cp) && backend === "disabled",
            "metricsBackend.mode",
            "metricsBackend.mode cannot be disabled for control or all because the autoscaler requires a PromQL endpoint",
        ],
        [
            collectorInstalled && mode("targetAllocator") === "existing",
            path("targetAllocator"),
            "observability.components.targetAllocator.mode=existing requires observability.components.collector.mode=existing; use install or disabled with a stack-owned collector",
        ],
        [
            !collectorInstalled && mode("targetAllocator") === "install",
            path("targetAllocator"),
            "observability.components.targetAllocator.mode=install requires observability.components.collector.mode=install",
        ],
        [
            !collectorInstalled && mode("discoveryRbac") === "install",
            path("discoveryRbac"),
            "observability.components.discoveryRbac.mode=install requires observability.components.collector.mode=install",
        ],
        [
            mode("targetAllocator") === "install" && mode("discoveryRbac") === "disabled",
            path("discoveryRbac"),
            "observability.components.discoveryRbac.mode cannot be disabled when the Target Allocator is installed; use existing for externally managed RBAC",
        ],
    ];
    // One problem per key: the first rule a key breaks says what to change.
    const seen = new Set<string>();
    return rules.flatMap(([broken, key, message]) => {
        if (!broken || seen.has(key)) return [];
        seen.add(key);
        return [{ path: key, message }];
    });
};
