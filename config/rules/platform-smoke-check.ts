import type { ConfigProblem } from "../model/errors";
import { PROJECT } from "../model/keys";
import { adminIssuerRouteOn } from "../model/derived-facts";
import type { SettingsRule } from "./rule";

/** The platform smoke check creates a function: it needs an image with its registry host, and a token. */
export const platformSmokeCheck: SettingsRule = (settings) => {
    const smoke = settings.checks.smoke;
    if (!smoke.platform) return [];
    const problems: ConfigProblem[] = [];
    const image = smoke.functionImage;
    if (!image) {
        problems.push({
            key: `${PROJECT}:checks.smoke.functionImage`,
            message:
                "is required with checks.smoke.platform: the function's image, which the API looks up in its registry with the default account's credential",
            allowed: "e.g. nvcr.io/<org>/<team>/<image>:<tag>",
        });
    } else if (!/^[^/]*[.:][^/]*\//.test(image)) {
        problems.push({
            key: `${PROJECT}:checks.smoke.functionImage`,
            message: "must start with its registry host: the API refuses an image without one (Invalid registry URL)",
            given: image,
            allowed: "e.g. nvcr.io/<org>/<team>/<image>:<tag>",
        });
    }
    if (!adminIssuerRouteOn(settings.controlPlane) && !settings.secrets.nvcfAdminToken) {
        problems.push({
            key: `${PROJECT}:nvcfAdminToken`,
            message:
                "is required for checks.smoke.platform when the admin issuer proxy's route is off: a token with the " +
                "register_function, list_functions and delete_function scopes (`pulumi config set --secret nvcfAdminToken <token>`)",
        });
    }
    return problems;
};
