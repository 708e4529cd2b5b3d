import type { ControlPlaneConfig } from "../../../config/model/schema";
import type { Values, ValuesContext } from "./context";

type WorkloadType = "vault" | "cassandra" | "controlplane";

/** `<registry>` and `<repository>/<name>`, as global.yaml.gotmpl builds every image. */
export function image(cp: ControlPlaneConfig, name: string): { registry: string; repository: string } {
    return { registry: cp.global.image.registry, repository: `${cp.global.image.repository}/${name}` };
}

/** The `nvcf.nodeSelector` helper: the workload type's selector, falling back to `all`. */
export function nodeSelector(cp: ControlPlaneConfig, type: WorkloadType): Values {
    const selectors = cp.global.nodeSelectors;
    if (!selectors.enabled) return {};
    const chosen = selectors[type]?.key ? selectors[type] : selectors.all;
    return chosen?.key ? { nodeSelector: { [chosen.key]: chosen.value } } : {};
}

/** The `nvcf.tolerations` helper: the workload type's list, falling back to `all`. */
export function tolerations(cp: ControlPlaneConfig, type: WorkloadType): Values {
    const tol = cp.global.tolerations;
    if (!tol.enabled) return {};
    const chosen = tol[type]?.length ? tol[type] : tol.all;
    return chosen && chosen.length > 0 ? { tolerations: chosen } : {};
}

/** Node selector and tolerations for a workload type. */
export function placement(cp: ControlPlaneConfig, type: WorkloadType): Values {
    return { ...nodeSelector(cp, type), ...tolerations(cp, type) };
}

/** `imagePullSecrets` when there are any. */
export function pullSecrets(ctx: ValuesContext): Values {
    return ctx.imagePullSecrets.length > 0 ? { imagePullSecrets: [...ctx.imagePullSecrets] } : {};
}

/** A map value only when it is non-empty (global's `with` blocks). */
export function nonEmpty(key: string, value: object | undefined): Values {
    return value && Object.keys(value).length > 0 ? { [key]: value } : {};
}

/** A service's `podDisruptionBudget` block, passed through whole ("" bounds included) as global.yaml.gotmpl does. */
export function pdb(cfg: { podDisruptionBudget: object }): Values {
    return nonEmpty("podDisruptionBudget", { ...cfg.podDisruptionBudget });
}

/** `<protocol>://<endpoint>:<port>` of the tracing collector. */
export function otlpEndpoint(cp: ControlPlaneConfig): string {
    const t = cp.global.observability.tracing;
    return `${t.collectorProtocol}://${t.collectorEndpoint}:${t.collectorPort}`;
}

/**
 * The Spring services' tracing env. The switch is a string, except where the bundle's template
 * leaves it unquoted (nvct-api): there it is a YAML bool, and a string would change the chart's
 * rendered env, so its pods would roll once when a Helmfile install moves here.
 */
export function springTracingEnv(cp: ControlPlaneConfig, as: "string" | "bool" = "string"): Values {
    const enabled = cp.global.observability.tracing.enabled;
    return {
        MANAGEMENT_TRACING_ENABLED: as === "bool" ? enabled : String(enabled),
        ...(enabled ? { MANAGEMENT_OTLP_TRACING_ENDPOINT: `${otlpEndpoint(cp)}/v1/traces` } : {}),
    };
}

/** Drops undefined entries so values stay minimal and deterministic. */
export function defined(values: Record<string, unknown>): Values {
    return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined && v !== ""));
}
