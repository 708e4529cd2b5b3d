import type { ControlPlaneRule, Problem } from "./rule";
import { functionAutoscalerEnabled, metricsBackendMode } from "../model/derived-facts";

/**
 * The metrics backend: its type and authentication follow its mode, an existing one needs its
 * URLs, and the autoscaler's authentication its endpoint or client certificate.
 */
export const metricsBackendModeAndEndpoints: ControlPlaneRule = (cp) => {
    // Without a profile the bundle never reads the observability bundle's keys.
    if (cp.observability.profile === "disabled") return [];
    const problems: Problem[] = [];
    const mb = cp.metricsBackend;
    const mode = metricsBackendMode(cp);
    if (mode === "install" && mb.type !== "victoriaMetrics") {
        problems.push({
            path: "metricsBackend.type",
            message: `metricsBackend.type must be victoriaMetrics when metricsBackend.mode=install, got "${mb.type}"`,
            given: mb.type,
            allowed: "victoriaMetrics, or metricsBackend.mode: existing",
        });
    }
    if (mode === "install" && mb.authentication.mode !== "none") {
        problems.push({
            path: "metricsBackend.authentication.mode",
            message: "must be none when metricsBackend.mode=install",
            given: mb.authentication.mode,
            allowed: "none",
        });
    }
    if (mode === "existing" && mb.type !== "external") {
        problems.push({
            path: "metricsBackend.type",
            message: `metricsBackend.type must be external when metricsBackend.mode=existing, got "${mb.type}"`,
            given: mb.type,
            allowed: "external",
        });
    }
    if (mode === "existing" && mb.remoteWriteEndpoint === "") {
        problems.push({
            path: "metricsBackend.remoteWriteEndpoint",
            message: "is required when metricsBackend.mode=existing",
            given: "",
            allowed: "the remote-write URL of your metrics backend",
        });
    }
    if (functionAutoscalerEnabled(cp) && mode === "existing" && mb.promqlEndpoint === "") {
        problems.push({
            path: "metricsBackend.promqlEndpoint",
            message: "is required for control and all profiles",
            given: "",
            allowed: "the PromQL URL of your metrics backend",
        });
    }
    if (functionAutoscalerEnabled(cp) && mb.authentication.mode === "token" && mb.authentication.authnEndpoint === "") {
        problems.push({
            path: "metricsBackend.authentication.authnEndpoint",
            message: "is required for token authentication",
            given: "",
        });
    }
    if (
        functionAutoscalerEnabled(cp) &&
        mb.authentication.mode === "mtls" &&
        (mb.authentication.clientCertificatePath === "" || mb.authentication.clientPrivateKeyPath === "")
    ) {
        problems.push({
            path: "metricsBackend.authentication.clientCertificatePath",
            message: "clientCertificatePath and clientPrivateKeyPath are required for mtls authentication",
        });
    }
    return problems;
};
