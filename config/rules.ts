import type { ControlPlaneConfig } from "./schema";
import { ConfigProblem, keyPath } from "./errors";
import { PROJECT, SecretKey } from "./keys";
import type { Settings } from "./keys";
import { RESERVED_PULL_SECRET_NAMES, type ComputePlaneConfig } from "./compute-plane-schema";
import { ecrRegistry } from "./aws-schema";
import {
    adminIssuerRouteOn,
    componentMode,
    dynamoOperatorPresent,
    functionAutoscalerEnabled,
    groveOperatorPresent,
    kaiSchedulerPresent,
    managedIssuer,
    metricsBackendMode,
    type ObservabilityComponent,
    routeHostnames,
} from "./derived-facts";
import { hostname } from "./grammar";
import { validRouterAddress } from "./router-address";

/**
 * Every rule that spans several keys: the render-time `fail`s and `required`s of NVIDIA's
 * `global.yaml.gotmpl` and helmfiles, the runbooks' "must"s, and what this program needs to
 * reach its clusters and registries. Each check returns every problem, so a user fixes them
 * all in one pass.
 */

/** Problems of settings whose keys each parsed, in a stable order. */
export function crossKeyProblems(settings: Settings, releaseNames: readonly string[]): ConfigProblem[] {
    return [
        ...controlPlaneProblems(settings.controlPlane).map(({ path, ...rest }) => ({
            ...rest,
            key: `${PROJECT}:controlPlane.${path}`,
        })),
        ...releaseOverrideProblems(settings, releaseNames),
        ...secretProblems(settings),
        ...pullSecretModeProblems(settings),
        ...computePlaneProblems(settings),
        ...smokeProblems(settings),
    ];
}

/** The platform smoke check creates a function: it needs an image with its registry host, and a token. */
function smokeProblems(settings: Settings): ConfigProblem[] {
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
}

/** Kyverno injects the stack's pull secret: there must be one, and Kyverno is installed only for that. */
function pullSecretModeProblems(settings: Settings): ConfigProblem[] {
    const { pullSecret, kyverno } = settings.registry;
    const problems: ConfigProblem[] = [];
    if (pullSecret.mode === "kyverno" && !pullSecret.enabled) {
        problems.push({
            key: `${PROJECT}:registry.pullSecret.mode`,
            message: "kyverno injects the stack's pull secret, and registry.pullSecret.enabled is false (no pull secret)",
            given: "kyverno",
            allowed: "values, or registry.pullSecret.enabled: true",
        });
    }
    if (pullSecret.mode === "kyverno" && pullSecret.enabled && ecrRegistry(settings.controlPlane.global.image.registry)) {
        problems.push({
            key: `${PROJECT}:registry.pullSecret.mode`,
            message: "the stack creates no pull secret for an ECR registry (nodes pull with their IAM role), so there is nothing to inject",
            given: "kyverno",
            allowed: "values",
        });
    }
    if (kyverno.install && pullSecret.mode !== "kyverno") {
        problems.push({
            key: `${PROJECT}:registry.kyverno.install`,
            message: "installs Kyverno for registry.pullSecret.mode: kyverno, and the mode is values",
            given: true,
            allowed: "false, or registry.pullSecret.mode: kyverno",
        });
    }
    if (kyverno.install && !kyverno.version) {
        problems.push({
            key: `${PROJECT}:registry.kyverno.version`,
            message: "is required when registry.kyverno.install is true: the stack pins every chart it installs",
            allowed: "the exact version of the kyverno chart (https://kyverno.github.io/kyverno/)",
        });
    }
    return problems;
}

/**
 * Secret keys set without `--secret`. The secret keys are not declared in Pulumi.yaml (the
 * CLI would make them required), so the CLI's own refusal of a plain-text secret is done here.
 */
export function plaintextSecretProblems(keys: readonly SecretKey[]): ConfigProblem[] {
    return keys.map((key) => ({
        key: `${PROJECT}:${key}`,
        message: `is stored in plain text in the stack file: set it again with \`pulumi config set --secret ${key}\``,
    }));
}

/** A problem under `controlPlane`, by its path relative to it. */
type Problem = Omit<ConfigProblem, "key"> & { path: string };

function controlPlaneProblems(cp: ControlPlaneConfig): Problem[] {
    return [
        ...placeholderProblems(cp),
        ...natsProblems(cp),
        ...openbaoProblems(cp),
        ...adminIssuerProxyProblems(cp),
        ...gatewayProblems(cp),
        ...derivedHostnameProblems(cp),
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
    // openbao-server's migrations copy the nats release's nkey Secrets; without NATS they fail.
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

/** The JWT plugin lifecycle is a mode of the openbao-server release: without it there is nothing to switch. */
function openbaoProblems(cp: ControlPlaneConfig): Problem[] {
    const mode = cp.openbao.jwtPluginLifecycle.mode;
    if (mode === undefined || cp.openbao.enabled) return [];
    return [
        {
            path: "openbao.jwtPluginLifecycle.mode",
            message: "the JWT plugin lifecycle is OpenBao's, and openbao.enabled is false",
            given: mode,
            allowed: "unset while openbao.enabled is false",
        },
    ];
}

function adminIssuerProxyProblems(cp: ControlPlaneConfig): Problem[] {
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
}

function gatewayProblems(cp: ControlPlaneConfig): Problem[] {
    const problems: Problem[] = [];
    const gw = cp.ingress.gatewayApi;
    const required = (path: string, value: string, why: string) => {
        if (value.trim() === "") {
            problems.push({ path, message: `is required ${why}`, given: value, allowed: "a non-empty name" });
        }
    };
    // global.yaml.gotmpl is rendered for every release and requires the gateway names and namespaces.
    if (gw.enabled || adminIssuerRouteOn(cp)) {
        const why = gw.enabled ? "when ingress.gatewayApi.enabled is true" : "for the admin issuer proxy's route";
        required("ingress.gatewayApi.gateways.shared.name", gw.gateways.shared.name, why);
        required("ingress.gatewayApi.gateways.shared.namespace", gw.gateways.shared.namespace, why);
    }
    if (gw.enabled) {
        const why = "when ingress.gatewayApi.enabled is true";
        required("ingress.gatewayApi.gateways.grpc.name", gw.gateways.grpc.name, why);
        required("ingress.gatewayApi.gateways.grpc.namespace", gw.gateways.grpc.namespace, why);
        // The ingress release installs into the Envoy Gateway controller's namespace, so it is required.
        required("ingress.gatewayApi.controllerNamespace", gw.controllerNamespace, why);
    }
    if (gw.enabled && gw.routes.nats.enabled) {
        const why = "when ingress.gatewayApi.routes.nats.enabled is true";
        required("ingress.gatewayApi.gateways.nats.name", gw.gateways.nats.name, why);
        required("ingress.gatewayApi.gateways.nats.namespace", gw.gateways.nats.namespace, why);
    }
    return [...problems, ...gatewayInstallProblems(cp)];
}

/**
 * The hostnames the routes chart serves are made from global.domain (`api-keys.`, `*.invocation.`
 * and others before it), and the NATS route's (`nats.`): a domain valid alone can make one longer
 * than DNS (and the Gateway API) allows.
 */
function derivedHostnameProblems(cp: ControlPlaneConfig): Problem[] {
    const domain = cp.global.domain;
    const hosts = { ...routeHostnames(cp), nats: `nats.${domain}` };
    const longest = Object.entries(hosts)
        .filter(([, host]) => host.endsWith(domain))
        .map(([name, host]) => ({ name, host, problem: host.length > 253 ? `${host.length} characters` : hostname.check(host) }))
        .filter((h) => h.problem);
    if (longest.length === 0) return [];
    const prefix = Math.max(...Object.values(hosts).map((h) => (h.endsWith(domain) ? h.length - domain.length : 0)));
    return [
        {
            path: "global.domain",
            message: `makes hostnames DNS does not allow: ${longest.map((h) => `${h.name} ${h.host.slice(0, 40)}... (${h.problem})`).join("; ")}`,
            given: domain,
            allowed: `a domain of at most ${253 - prefix} characters (the longest name made from it adds ${prefix})`,
        },
    ];
}

/** The Gateway prerequisites the stack installs: only for the routes it installs, and fully pinned. */
function gatewayInstallProblems(cp: ControlPlaneConfig): Problem[] {
    const gw = cp.ingress.gatewayApi;
    const install = gw.install;
    if (!install.enabled) return [];
    const problems: Problem[] = [];
    if (!gw.enabled) {
        problems.push({
            path: "ingress.gatewayApi.install.enabled",
            message: "installs the Gateway the routes attach to, and ingress.gatewayApi.enabled is false (no routes)",
            given: true,
            allowed: "false, or ingress.gatewayApi.enabled: true",
        });
    }
    if (!install.crdsManifest) {
        problems.push({
            path: "ingress.gatewayApi.install.crdsManifest",
            message: "is required when ingress.gatewayApi.install.enabled is true: the Gateway API CRDs cannot be fetched at run time",
            allowed: "the path of the Gateway API v1.2.0 experimental-install.yaml (the bundle's version), downloaded once",
        });
    }
    if (!install.envoyGateway.version) {
        problems.push({
            path: "ingress.gatewayApi.install.envoyGateway.version",
            message: "is required when ingress.gatewayApi.install.enabled is true: the stack pins every chart it installs",
            allowed: "the exact gateway-helm chart version of an Envoy Gateway release that supports Gateway API v1.2.0",
        });
    }
    return problems;
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
    // Without a profile the bundle never reads the observability bundle's keys.
    if (profile === "disabled") return problems;
    problems.push(...componentProblems(cp));
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
}

/** The observability bundle's rules between its components' modes, with its messages. */
function componentProblems(cp: ControlPlaneConfig): Problem[] {
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
}

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

function pdbProblems(cp: ControlPlaneConfig): Problem[] {
    return SERVICE_PDBS.flatMap(([key, installed]): Problem[] => {
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
}

function llmProblems(cp: ControlPlaneConfig): Problem[] {
    const llm = cp.addons.llm;
    if (!llm.enabled) return [];
    const problems: Problem[] = [];
    const address = cp.global.workerEndpoints.llmRequestRouterAddress.trim();
    if (address !== "" && !validRouterAddress(address)) {
        problems.push({
            path: "global.workerEndpoints.llmRequestRouterAddress",
            message: "global.workerEndpoints.llmRequestRouterAddress must use DNS-or-IPv4:port or [IPv6]:port with port 1-65535",
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
    if (cp.addons.nvcfUi.enabled && tag && compareVersions(tag, "0.16.2") < 0) {
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
    const parse = (v: string) =>
        v
            .replace(/^v/, "")
            .split(/[.-]/)
            .slice(0, 3)
            .map((p) => Number(p) || 0);
    const [pa, pb] = [parse(a), parse(b)];
    for (let i = 0; i < 3; i++) {
        if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
    }
    return 0;
}

function releaseOverrideProblems(settings: Settings, releaseNames: readonly string[]): ConfigProblem[] {
    return Object.keys(settings.releases)
        .filter((name) => !releaseNames.includes(name))
        .map((name) => ({
            key: keyPath(`${PROJECT}:releases`, [name]),
            message: "unknown release",
            given: name,
            allowed: releaseNames.join(", "),
        }));
}

function secretProblems(settings: Settings): ConfigProblem[] {
    const problems: ConfigProblem[] = [];
    if (settings.cluster.eks && (settings.cluster.context || settings.secrets.kubeconfig)) {
        problems.push({
            key: `${PROJECT}:cluster.eks`,
            message: "an EKS cluster is reached through its name alone: set no context and no kubeconfig secret",
        });
    }
    const has = (key: SecretKey) => settings.secrets[key] !== undefined;
    const ecrImages = ecrRegistry(settings.controlPlane.global.image.registry) !== undefined;
    if (settings.registry.pullSecret.enabled && !ecrImages && !has("ngcApiKey")) {
        problems.push({
            key: `${PROJECT}:ngcApiKey`,
            message:
                "is required for the image pull secrets (set it with `pulumi config set --secret ngcApiKey <key>`), " +
                "or set registry.pullSecret.enabled: false when nodes pull with their own identity",
        });
    }
    const sources = settings.controlPlane.global.helm.sources;
    const ngcCharts = !sources.url && !sources.path && sources.registry === "nvcr.io";
    if (ngcCharts && !has("ngcApiKey") && !has("chartRegistryPassword")) {
        problems.push({
            key: `${PROJECT}:ngcApiKey`,
            message: "is required to pull the charts from nvcr.io (or set chartRegistryPassword)",
        });
    }
    return problems;
}

function computePlaneProblems(settings: Settings): ConfigProblem[] {
    const problems: ConfigProblem[] = [];
    const pullSecret = settings.registry.pullSecret.name;
    if (settings.computePlanes.length > 0 && (RESERVED_PULL_SECRET_NAMES as readonly string[]).includes(pullSecret)) {
        problems.push({
            key: `${PROJECT}:registry.pullSecret.name`,
            message: "the NVCA mirror reserves this pull secret name",
            given: pullSecret,
            allowed: "e.g. nvcr-pull-secret",
        });
    }
    if (settings.computePlanes.length > 0 && !adminIssuerRouteOn(settings.controlPlane) && !settings.secrets.nvcfAdminToken) {
        problems.push({
            key: `${PROJECT}:nvcfAdminToken`,
            message:
                "is required to register GPU clusters when the admin issuer proxy's route is off: " +
                "set a token with the cluster-management scope from your identity provider " +
                "(`pulumi config set --secret nvcfAdminToken <token>`)",
        });
    }
    settings.computePlanes.forEach((plane, i) => {
        const key = (path: string) => `${PROJECT}:computePlanes[${i}].${path}`;
        const hasKubeconfig = settings.computePlaneKubeconfigNames.includes(plane.clusterName);
        if (plane.cluster.eks && (plane.cluster.sameAsControlPlane || plane.cluster.context || hasKubeconfig)) {
            problems.push({
                key: key("cluster.eks"),
                message: "an EKS cluster is reached through its name alone: no sameAsControlPlane, context or kubeconfig",
            });
        }
        if (plane.cluster.sameAsControlPlane && (plane.cluster.context || hasKubeconfig)) {
            problems.push({
                key: key("cluster.sameAsControlPlane"),
                message: "a compute plane on the control plane's cluster takes no context or kubeconfig of its own",
                given: true,
            });
        }
        if (!plane.cluster.sameAsControlPlane && !plane.cluster.context && !hasKubeconfig && !plane.cluster.eks) {
            // Never the ambient context: it may be another cluster, whose issuer and JWKS would be registered.
            problems.push({
                key: key("cluster"),
                message: `says nothing about how to reach the GPU cluster ${plane.clusterName}`,
                allowed:
                    "sameAsControlPlane: true, a context, eks: {name, region}, or a kubeconfig under computePlaneKubeconfigs." +
                    plane.clusterName,
            });
        }
        const localCharts = Boolean(plane.helmSources?.path ?? settings.controlPlane.global.helm.sources.path);
        problems.push(...addonProblems(plane, key, localCharts));
    });
    return problems;
}

/**
 * The compute-plane bundle's add-on DAG and NVCA's gates: Grove needs KAI, Dynamo needs Grove,
 * the topology needs KAI (the bundle's render `fail`), and a gate names only an add-on that runs
 * there (NVCA stays unhealthy otherwise). An add-on declared installed outside the stack counts
 * as present, but the stack must not install a second copy of it.
 */
function addonProblems(plane: ComputePlaneConfig, key: (path: string) => string, localCharts: boolean): ConfigProblem[] {
    const problems: ConfigProblem[] = [];
    const { addons } = plane;
    const outside = [
        ["kaiScheduler", "kaiSchedulerInstalled", plane.kaiSchedulerInstalled],
        ["groveOperator", "groveOperatorInstalled", plane.groveOperatorInstalled],
        ["dynamoOperator", "dynamoOperatorInstalled", plane.dynamoOperatorInstalled],
    ] as const;
    for (const [addon, installed, declared] of outside) {
        if (addons[addon].enabled && declared) {
            problems.push({
                key: key(`addons.${addon}.enabled`),
                message: `the stack would install a second copy of an add-on declared installed outside it (${installed}: true)`,
                given: true,
                allowed: `false while ${installed} is true, or ${installed}: false`,
            });
        }
    }
    const topology = addons.topologyAwareScheduling;
    if (topology.enabled && !topology.chartsPath && !topology.repository && !localCharts) {
        // nvcf-cluster-topology lives only in the bundle (deploy/stacks/nvcf-compute-plane/charts), referenced there by a local path.
        problems.push({
            key: key("addons.topologyAwareScheduling.chartsPath"),
            message:
                "the nvcf-cluster-topology chart ships only inside NVIDIA's bundle (deploy/stacks/nvcf-compute-plane/charts), in no chart registry",
            given: "unset",
            allowed:
                "the directory holding the bundle's charts (or global.helm.sources.path, when it holds them all), or " +
                "addons.topologyAwareScheduling.repository: a chart repository you pushed it to",
        });
    }
    const needs = [
        [
            addons.topologyAwareScheduling.enabled,
            "topologyAwareScheduling",
            kaiSchedulerPresent(plane),
            "the KAI scheduler",
            "addons.kaiScheduler.enabled: true or kaiSchedulerInstalled: true",
        ],
        [
            addons.groveOperator.enabled,
            "groveOperator",
            kaiSchedulerPresent(plane),
            "the KAI scheduler",
            "addons.kaiScheduler.enabled: true or kaiSchedulerInstalled: true",
        ],
        [
            addons.dynamoOperator.enabled,
            "dynamoOperator",
            groveOperatorPresent(plane),
            "the Grove operator",
            "addons.groveOperator.enabled: true or groveOperatorInstalled: true",
        ],
    ] as const;
    for (const [on, addon, present, what, allowed] of needs) {
        if (on && !present) {
            problems.push({
                key: key(`addons.${addon}.enabled`),
                message: `needs ${what} on the same cluster`,
                given: true,
                allowed: `false, or ${allowed}`,
            });
        }
    }
    const gates = [
        [
            "KAIScheduler",
            kaiSchedulerPresent(plane),
            "the KAI scheduler",
            "addons.kaiScheduler.enabled: true, or kaiSchedulerInstalled: true once the KAI scheduler runs there",
        ],
        [
            "DynamoOperatorSupport",
            dynamoOperatorPresent(plane),
            "the Dynamo operator",
            "addons.dynamoOperator.enabled: true, or dynamoOperatorInstalled: true once the Dynamo operator runs there",
        ],
    ] as const;
    for (const [gate, present, what, allowed] of gates) {
        if (plane.featureGates.includes(gate) && !present) {
            problems.push({
                key: key("featureGates"),
                message: `the ${gate} gate keeps NVCA unhealthy on a cluster without ${what}`,
                given: gate,
                allowed,
            });
        }
    }
    return problems;
}
