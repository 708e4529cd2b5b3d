import { isIPv4, isIPv6 } from "node:net";
import type { ControlPlaneConfig } from "./schema";
import type { ConfigProblem } from "./errors";

type Problem = Omit<ConfigProblem, "key"> & { path: string };

/**
 * The rules that span several keys: the render-time `fail`s and `required`s of NVIDIA's
 * `global.yaml.gotmpl` and helmfiles, and the runbooks' "must"s. Paths are relative to
 * `controlPlane`. Returns every problem, so a user fixes them all in one pass.
 */
export function crossFieldProblems(cp: ControlPlaneConfig): Problem[] {
    return [
        ...placeholderProblems(cp),
        ...natsProblems(cp),
        ...adminIssuerProxyProblems(cp),
        ...gatewayProblems(cp),
        ...observabilityProblems(cp),
        ...pdbProblems(cp),
        ...llmProblems(cp),
        ...nvcfUiProblems(cp),
    ];
}

function placeholderProblems(cp: ControlPlaneConfig): Problem[] {
    const problems: Problem[] = [];
    const placeholder = "YOUR_ORG/YOUR_TEAM";
    if (cp.global.image.repository === placeholder) {
        problems.push({
            path: "global.image.repository",
            message: "still the bundle's placeholder; set the NGC org/team (or mirror path) that holds the NVCF images",
            given: placeholder,
            allowed: "e.g. my-org/my-team",
        });
    }
    const sources = cp.global.helm.sources;
    if (!sources.url && !sources.path && sources.repository === placeholder) {
        problems.push({
            path: "global.helm.sources.repository",
            message: "still the bundle's placeholder; set the org/team (or mirror path) that holds the NVCF charts",
            given: placeholder,
            allowed: "e.g. my-org/my-team, or set global.helm.sources.url or .path instead",
        });
    }
    if (sources.url && sources.path) {
        problems.push({
            path: "global.helm.sources.path",
            message: "set either global.helm.sources.url (an https chart repository) or .path (a local directory), not both",
            given: sources.path,
        });
    }
    return problems;
}

function natsProblems(cp: ControlPlaneConfig): Problem[] {
    const problems: Problem[] = [];
    if (cp.nats.workerAuth === "token" && cp.nats.authCallout.workerTokenAuth.webhookUrl.trim() === "") {
        problems.push({
            path: "nats.authCallout.workerTokenAuth.webhookUrl",
            message: "must not be empty when nats.workerAuth is token",
            given: "",
            allowed: "the NVCF API's webhook URL, e.g. http://api.nvcf.svc.cluster.local:8080/v2/nvcf/webhook/nats-auth",
        });
    }
    // Gotcha 14: the OpenBao migrations copy the NATS nkeys; without NATS they fail.
    if (cp.openbao.enabled && !cp.nats.enabled) {
        problems.push({
            path: "nats.enabled",
            message: "openbao-server needs the nats release's Secrets (its migrations copy the NATS nkeys)",
            given: false,
            allowed: "true while openbao.enabled is true",
        });
    }
    return problems;
}

function adminIssuerProxyProblems(cp: ControlPlaneConfig): Problem[] {
    if (!cp.adminIssuerProxy.enabled && !cp.adminIssuerProxy.gateway.enabled) {
        return [
            {
                path: "adminIssuerProxy.gateway.enabled",
                message:
                    "adminIssuerProxy.enabled: false already removes the route, so the two are not combined",
                given: false,
                allowed: "leave adminIssuerProxy.gateway.enabled unset when adminIssuerProxy.enabled is false",
            },
        ];
    }
    return [];
}

function gatewayProblems(cp: ControlPlaneConfig): Problem[] {
    const problems: Problem[] = [];
    const gw = cp.ingress.gatewayApi;
    const required = (path: string, value: string, why: string) => {
        if (value.trim() === "") {
            problems.push({ path, message: `is required ${why}`, given: value, allowed: "a non-empty name" });
        }
    };
    // Gotcha 5: global.yaml.gotmpl requires the gateway names for every release it renders.
    const adminRoute = cp.adminIssuerProxy.enabled && cp.adminIssuerProxy.gateway.enabled;
    if (gw.enabled || adminRoute) {
        const why = gw.enabled ? "when ingress.gatewayApi.enabled is true" : "for the admin issuer proxy's route";
        required("ingress.gatewayApi.gateways.shared.name", gw.gateways.shared.name, why);
        required("ingress.gatewayApi.gateways.shared.namespace", gw.gateways.shared.namespace, why);
    }
    if (gw.enabled) {
        const why = "when ingress.gatewayApi.enabled is true";
        required("ingress.gatewayApi.gateways.grpc.name", gw.gateways.grpc.name, why);
        required("ingress.gatewayApi.gateways.grpc.namespace", gw.gateways.grpc.namespace, why);
        // Gotcha 18: the ingress release installs into the Envoy Gateway controller's namespace.
        required("ingress.gatewayApi.controllerNamespace", gw.controllerNamespace, why);
    }
    if (gw.enabled && gw.routes.nats.enabled) {
        const why = "when ingress.gatewayApi.routes.nats.enabled is true";
        required("ingress.gatewayApi.gateways.nats.name", gw.gateways.nats.name, why);
        required("ingress.gatewayApi.gateways.nats.namespace", gw.gateways.nats.namespace, why);
    }
    return problems;
}

export function functionAutoscalerEnabled(cp: ControlPlaneConfig): boolean {
    return cp.observability.profile === "control" || cp.observability.profile === "all";
}

function observabilityProblems(cp: ControlPlaneConfig): Problem[] {
    const problems: Problem[] = [];
    const profile = cp.observability.profile;
    const mb = cp.metricsBackend;
    if (functionAutoscalerEnabled(cp) && !cp.stateMetrics.enabled) {
        problems.push({
            path: "stateMetrics.enabled",
            message: "function-autoscaler requires stateMetrics.enabled=true for control and all observability profiles",
            given: false,
            allowed: "true, or observability.profile disabled or compute",
        });
    }
    if (profile === "disabled") return problems;
    if (mb.mode === "install" && mb.authentication.mode !== "none") {
        problems.push({
            path: "metricsBackend.authentication.mode",
            message: "must be none when metricsBackend.mode=install",
            given: mb.authentication.mode,
            allowed: "none",
        });
    }
    if (mb.mode === "existing" && mb.remoteWriteEndpoint === "") {
        problems.push({
            path: "metricsBackend.remoteWriteEndpoint",
            message: "is required when metricsBackend.mode=existing",
            given: "",
            allowed: "the remote-write URL of your metrics backend",
        });
    }
    if (functionAutoscalerEnabled(cp) && mb.mode === "existing" && mb.promqlEndpoint === "") {
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
}

function pdbProblems(cp: ControlPlaneConfig): Problem[] {
    const pdb = cp.cassandra.podDisruptionBudget;
    const both = pdb.minAvailable !== undefined && pdb.maxUnavailable !== undefined;
    const neither = pdb.minAvailable === undefined && pdb.maxUnavailable === undefined;
    if (pdb.enabled && (both || neither)) {
        return [
            {
                path: "cassandra.podDisruptionBudget",
                message: "podDisruptionBudget: set exactly one of minAvailable or maxUnavailable, not both",
                given: pdb,
            },
        ];
    }
    return [];
}

const DNS_ADDRESS = /^([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?))*:[0-9]{1,5}$/;
const BRACKETED_IPV6 = /^\[([0-9A-Fa-f:.]+)\]:([0-9]{1,5})$/;

/** The router address check of global.yaml.gotmpl: DNS-or-IPv4:port or [IPv6]:port, port 1-65535. */
export function validRouterAddress(address: string): boolean {
    const v6 = BRACKETED_IPV6.exec(address);
    if (v6) return isIPv6(v6[1]) && portInRange(v6[2]);
    if (!DNS_ADDRESS.test(address)) return false;
    const host = address.slice(0, address.lastIndexOf(":"));
    if (/^[0-9.]+$/.test(host) && !isIPv4(host)) return false;
    return portInRange(address.slice(address.lastIndexOf(":") + 1));
}

function portInRange(port: string): boolean {
    const n = Number(port);
    return Number.isInteger(n) && n >= 1 && n <= 65535;
}

/** True when the stack installs nvcf-pki and its ClusterIssuer (01-dependencies' managed issuer). */
export function managedIssuer(cp: ControlPlaneConfig): boolean {
    const llm = cp.addons.llm;
    if (!llm.enabled || !llm.pki.enabled || llm.pki.mode !== "certManager") return false;
    return (
        llm.pki.clusterIssuer?.enabled ??
        (llm.pki.issuerKind === "ClusterIssuer" && llm.pki.issuerName === "nvcf-openbao-pki")
    );
}

function llmProblems(cp: ControlPlaneConfig): Problem[] {
    const llm = cp.addons.llm;
    if (!llm.enabled) return [];
    const problems: Problem[] = [];
    const address = cp.global.workerEndpoints.llmRequestRouterAddress.trim();
    if (address !== "" && !validRouterAddress(address)) {
        problems.push({
            path: "global.workerEndpoints.llmRequestRouterAddress",
            message:
                "global.workerEndpoints.llmRequestRouterAddress must use DNS-or-IPv4:port or [IPv6]:port with port 1-65535",
            given: address,
        });
    }
    const pki = llm.pki;
    if (!pki.enabled) return problems;
    if (pki.mode === "existingSecret") {
        if (pki.clusterIssuer?.enabled) {
            problems.push({
                path: "addons.llm.pki.clusterIssuer.enabled",
                message:
                    "must be false or unset when addons.llm.pki.mode is existingSecret; cert-manager and the operator cannot both own the request-router certificate",
                given: true,
            });
        }
        if (pki.dnsNames.length > 0) {
            problems.push({
                path: "addons.llm.pki.dnsNames",
                message: "applies only to a stack-issued Certificate and must be empty when addons.llm.pki.mode is existingSecret",
                given: pki.dnsNames,
            });
        }
        if (pki.allowedDomains !== "") {
            problems.push({
                path: "addons.llm.pki.allowedDomains",
                message: "must be empty when addons.llm.pki.mode is existingSecret",
                given: pki.allowedDomains,
            });
        }
        if (!pki.secretName) {
            problems.push({
                path: "addons.llm.pki.secretName",
                message: "addons.llm.pki.secretName is required when addons.llm.pki.mode is existingSecret",
            });
        }
        return problems;
    }
    if (pki.dnsNames.length === 0) {
        problems.push({
            path: "addons.llm.pki.dnsNames",
            message: "must contain at least one DNS name when addons.llm.pki.enabled is true",
            given: [],
        });
    }
    if (managedIssuer(cp)) {
        if (pki.issuerKind !== "ClusterIssuer") {
            problems.push({
                path: "addons.llm.pki.issuerKind",
                message: "addons.llm.pki.clusterIssuer management supports only issuerKind=ClusterIssuer",
                given: pki.issuerKind,
                allowed: "ClusterIssuer",
            });
        }
        if (!cp.openbao.enabled) {
            problems.push({
                path: "openbao.enabled",
                message: "openbao.enabled must be true when addons.llm.pki.clusterIssuer management is enabled",
                given: false,
            });
        }
        if (pki.allowedDomains === "") {
            problems.push({
                path: "addons.llm.pki.allowedDomains",
                message: "is required when addons.llm.pki.clusterIssuer management is enabled",
                given: "",
            });
        }
        if (!pki.image.tag && !cp.openbao.migrations.image.tag) {
            problems.push({
                path: "addons.llm.pki.image.tag",
                message:
                    "addons.llm.pki.image.tag (or openbao.migrations.image.tag) is required when addons.llm.pki.clusterIssuer management is enabled",
            });
        }
    }
    return problems;
}

function nvcfUiProblems(cp: ControlPlaneConfig): Problem[] {
    const tag = cp.addons.nvcfUi.openbaoMigrations.image.tag;
    // global.yaml.gotmpl silently ignores a tag under its 0.16.2 floor; we say so instead.
    if (cp.addons.nvcfUi.enabled && tag !== "" && compareVersions(tag, "0.16.2") < 0) {
        return [
            {
                path: "addons.nvcfUi.openbaoMigrations.image.tag",
                message: "the nvcf-ui OpenBao migrations need 0.16.2 or newer",
                given: tag,
                allowed: ">= 0.16.2",
            },
        ];
    }
    return [];
}

function compareVersions(a: string, b: string): number {
    const parse = (v: string) => v.replace(/^v/, "").split(/[.-]/).slice(0, 3).map((p) => Number(p) || 0);
    const [pa, pb] = [parse(a), parse(b)];
    for (let i = 0; i < 3; i++) {
        if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
    }
    return 0;
}
