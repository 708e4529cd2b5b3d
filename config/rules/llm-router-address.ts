import type { ControlPlaneRule } from "./rule";
import { validRouterAddress } from "../model/router-address";

/** The LLM request router's address the workers dial: a host and port, as the bundle's template checks it. */
export const llmRouterAddress: ControlPlaneRule = (cp) => {
    if (!cp.addons.llm.enabled) return [];
    const address = cp.global.workerEndpoints.llmRequestRouterAddress.trim();
    if (address !== "" && !validRouterAddress(address)) {
        return [
            {
                path: "global.workerEndpoints.llmRequestRouterAddress",
                message: "global.workerEndpoints.llmRequestRouterAddress must use DNS-or-IPv4:port or [IPv6]:port with port 1-65535",
                given: address,
            },
        ];
    }
    return [];
};
