import type { ControlPlaneRule } from "./rule";
import { functionAutoscalerEnabled } from "../model/derived-facts";

/** function-autoscaler, which the control and all observability profiles install, reads the state metrics. */
export const autoscalerNeedsStateMetrics: ControlPlaneRule = (cp) => {
    if (functionAutoscalerEnabled(cp) && !cp.stateMetrics.enabled) {
        return [
            {
                path: "stateMetrics.enabled",
                message: "function-autoscaler requires stateMetrics.enabled=true for control and all observability profiles",
                given: false,
                allowed: "true, or observability.profile disabled or compute",
            },
        ];
    }
    return [];
};
