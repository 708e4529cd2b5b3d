import { PROJECT } from "../model/keys";
import { adminIssuerRouteOn } from "../model/derived-facts";
import type { SettingsRule } from "./rule";

/** Registering GPU clusters takes an admin token: from the admin issuer proxy's route, or set. */
export const adminTokenForRegistration: SettingsRule = (settings) => {
    if (settings.computePlanes.length > 0 && !adminIssuerRouteOn(settings.controlPlane) && !settings.secrets.nvcfAdminToken) {
        return [
            {
                key: `${PROJECT}:nvcfAdminToken`,
                message:
                    "is required to register GPU clusters when the admin issuer proxy's route is off: " +
                    "set a token with the cluster-management scope from your identity provider " +
                    "(`pulumi config set --secret nvcfAdminToken <token>`)",
            },
        ];
    }
    return [];
};
