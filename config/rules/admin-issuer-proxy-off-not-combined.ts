import type { ControlPlaneRule } from "./rule";

/** The admin issuer proxy turned off takes its route with it: its route is not turned off as well. */
export const adminIssuerProxyOffNotCombined: ControlPlaneRule = (cp) => {
    if (!cp.adminIssuerProxy.enabled && !cp.adminIssuerProxy.gateway.enabled) {
        return [
            {
                path: "adminIssuerProxy.gateway.enabled",
                message: "adminIssuerProxy.enabled: false already removes the route, so the two are not combined",
                given: false,
                allowed: "leave adminIssuerProxy.gateway.enabled unset when adminIssuerProxy.enabled is false",
            },
        ];
    }
    return [];
};
