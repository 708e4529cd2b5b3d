import type { ControlPlaneConfig } from "../model/schema";
import type { ControlPlaneRule, Problem } from "./rule";

/**
 * The disruption budgets of the charts that render one at the version the bundle pins: an
 * installed chart with its budget on fails unless exactly one bound is set ("" is unset).
 * base.yaml sets one bound of each, so setting the other needs the first set to "". (The pinned
 * ratelimiter, ess-api, invocation-service, function-autoscaler and admin-issuer-proxy charts
 * render none: their blocks have no effect, and nothing here refuses them.)
 */
const SERVICE_PDBS: readonly [key: PdbKey, installed: (cp: ControlPlaneConfig) => boolean][] = [
    ["cassandra", (cp) => cp.cassandra.enabled],
    ["apikeys", () => true],
    ["grpcproxy", () => true],
    ["reval", () => true],
    ["llmApiGateway", (cp) => cp.addons.llm.enabled],
    ["llmRequestRouter", (cp) => cp.addons.llm.enabled],
];
type PdbKey = "cassandra" | "apikeys" | "grpcproxy" | "reval" | "llmApiGateway" | "llmRequestRouter";

export const disruptionBudgetOneBound: ControlPlaneRule = (cp) =>
    SERVICE_PDBS.flatMap(([key, installed]): Problem[] => {
        const pdb = cp[key].podDisruptionBudget;
        if (!pdb.enabled || !installed(cp)) return [];
        const set = (v: number | string | undefined) => v !== undefined && v !== "";
        const [min, max] = [set(pdb.minAvailable), set(pdb.maxUnavailable)];
        if (min !== max) return [];
        return [
            {
                path: `${key}.podDisruptionBudget`,
                message: min
                    ? "podDisruptionBudget: set exactly one of minAvailable or maxUnavailable, not both"
                    : "podDisruptionBudget: set exactly one of minAvailable or maxUnavailable",
                given: pdb,
                allowed: min
                    ? 'one bound; set the other to "" (base.yaml sets one, and a partial block keeps it)'
                    : "minAvailable or maxUnavailable: a count or a percentage",
            },
        ];
    });
