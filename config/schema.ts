import { z } from "zod";
import { eksClusterSchema } from "./aws-schema";
import {
    chartVersion,
    dnsLabel,
    dnsSubdomain,
    filePath,
    grammarString as g,
    hostname,
    imageName,
    imageReference,
    imageTag as tagGrammar,
    int32,
    labelValue,
    orEmpty,
    pdbBound,
    port,
    PULL_POLICIES,
    qualifiedName,
    registryHost,
    registryUsername,
    repositoryPath,
    singleLine,
    stringMap,
    TOLERATION_EFFECTS,
    url,
} from "./grammar";

/**
 * The control-plane environment, key for key as NVIDIA's `environments/<env>.yaml` for the
 * `nvcf-self-managed-stack` bundle, with the defaults of its `environments/base.yaml`.
 * Unlike Helmfile, an unknown key is an error: every object is strict.
 */

/** A nested object whose own defaults apply when the user leaves it out (zod's prefault). */
export function section<T extends z.core.$ZodLooseShape>(shape: T) {
    // Every field of a section has a default, so an absent section parses as {}.
    return z.strictObject(shape).prefault({} as never);
}

const freeMap = z.record(z.string(), z.unknown());
/** Where a cluster prerequisite's chart comes from, when not from its public repository (a mirror). */
const chartRepository = () =>
    g(filePath)
        .regex(/^(https?:\/\/|oci:\/\/|\/|\.\.?\/)/, { message: "must be an https URL, an oci:// repository or a path" })
        .optional();
/** The bundle's placeholder org/team: accepted here so the rules can say what it is. */
const PLACEHOLDER_REPOSITORY = "YOUR_ORG/YOUR_TEAM";
const line = () => g(singleLine);
const annotations = () => stringMap(qualifiedName).default({});
const labels = () => stringMap(qualifiedName, labelValue).default({});

export const CHART_MANAGED_ANNOTATION_PREFIXES = ["checksum/", "vault.hashicorp.com/"] as const;
export const RESERVED_ANNOTATION_PREFIX = "nvcf.nvidia.com/nats-worker-auth";

/**
 * Pod annotations as the 1.1.0 document defines them: string values, no key the charts set
 * themselves (a duplicate YAML key in the concatenating charts), no reserved prefix.
 */
export const podAnnotations = z
    .record(z.string(), z.unknown())
    .superRefine((annotations, ctx) => {
        for (const [key, value] of Object.entries(annotations)) {
            const keyWhy = qualifiedName.check(key);
            if (keyWhy) {
                ctx.addIssue({
                    code: "custom",
                    path: [key],
                    input: key,
                    message: `the key must be ${qualifiedName.what}: ${keyWhy}`,
                    params: { allowed: qualifiedName.allowed },
                });
            }
            if (typeof value !== "string") {
                ctx.addIssue({
                    code: "custom",
                    path: [key],
                    input: value,
                    message:
                        "annotation values must be strings (quote numbers and booleans; with `pulumi config set --path`, add `--type string`)",
                    params: { allowed: 'a string, such as "8080" or "true"' },
                });
            }
            const managed = CHART_MANAGED_ANNOTATION_PREFIXES.find((p) => key.startsWith(p));
            if (managed) {
                ctx.addIssue({
                    code: "custom",
                    path: [key],
                    input: key,
                    message: `the key ${key} is managed by the chart itself`,
                    params: { allowed: `a key not starting with ${CHART_MANAGED_ANNOTATION_PREFIXES.join(" or ")}` },
                });
            }
            if (key.startsWith(RESERVED_ANNOTATION_PREFIX)) {
                ctx.addIssue({
                    code: "custom",
                    path: [key],
                    input: key,
                    message: `keys starting with ${RESERVED_ANNOTATION_PREFIX} are reserved for the auth callout's restart`,
                    params: { allowed: `a key not starting with ${RESERVED_ANNOTATION_PREFIX}` },
                });
            }
        }
    })
    .transform((a) => a as Record<string, string>)
    .prefault({});

const pdb = section({
    enabled: z.boolean().default(false),
    minAvailable: pdbBound().optional(),
    maxUnavailable: pdbBound().optional(),
});
function pdbWith(defaults: { maxUnavailable?: number; minAvailable?: number }) {
    return pdb.prefault(defaults);
}
const servicePdb = () => pdbWith({ maxUnavailable: 1 });

const nodeSelectorEntry = z.strictObject({ key: g(qualifiedName), value: g(labelValue) }).nullable();
export const toleration = z.looseObject({
    // "" with operator Exists tolerates every taint.
    key: orEmpty(qualifiedName).optional(),
    operator: z.enum(["Exists", "Equal"]).optional(),
    value: g(labelValue).optional(),
    effect: z.enum(TOLERATION_EFFECTS).optional(),
    tolerationSeconds: z.number().int().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER).optional(),
});
const tolerationList = z.array(toleration);

function accountLimit(name: string, max: number) {
    const message = `accounts.limits.${name} must be greater than 0 and less than or equal to ${max}`;
    return z.number().int().min(1, { message }).max(max, { message }).default(10);
}

/** An image tag; "" (the bundle's default) leaves the chart's own. */
const tag = () => orEmpty(tagGrammar);
const pullPolicy = () => z.enum(PULL_POLICIES);
const imageTag = section({ tag: tag().default("") });

export const controlPlaneSchema = z.strictObject({
    global: section({
        domain: g(dnsSubdomain, { message: "global.domain must be a DNS name", allowed: false }).default("localhost"),
        helm: section({
            sources: section({
                registry: g(registryHost).default("nvcr.io"),
                repository: g(repositoryPath, { also: [PLACEHOLDER_REPOSITORY] }).default(PLACEHOLDER_REPOSITORY),
                url: url(/^https?$/).optional(),
                username: g(registryUsername).optional(),
                path: g(filePath).optional(),
            }),
        }),
        imagePullSecrets: z.array(z.strictObject({ name: g(dnsSubdomain) })).default([]),
        image: section({
            registry: g(registryHost).default("nvcr.io"),
            repository: g(repositoryPath, { also: [PLACEHOLDER_REPOSITORY] }).default(PLACEHOLDER_REPOSITORY),
        }),
        workerEndpoints: section({
            nvcfServiceURL: line().default(""),
            nvcfGrpcServiceURL: line().default(""),
            nvcfNatsServiceURL: line().default(""),
            essServiceURL: line().default(""),
            nvctServiceURL: line().default(""),
            nvctGrpcServiceURL: line().default(""),
            invocationServiceURL: line().default(""),
            grpcProxyWorkerConnectURL: line().default(""),
            llmRequestRouterAddress: line().default(""),
        }),
        nodeSelectors: section({
            enabled: z.boolean().default(false),
            all: nodeSelectorEntry.optional(),
            vault: nodeSelectorEntry.default({ key: "nvcf.nvidia.com/workload", value: "vault" }),
            cassandra: nodeSelectorEntry.default({ key: "nvcf.nvidia.com/workload", value: "cassandra" }),
            controlplane: nodeSelectorEntry.default({
                key: "nvcf.nvidia.com/workload",
                value: "control-plane",
            }),
            worker: nodeSelectorEntry.optional(),
        }),
        tolerations: section({
            enabled: z.boolean().default(false),
            all: tolerationList.default([]),
            vault: tolerationList.optional(),
            cassandra: tolerationList.optional(),
            controlplane: tolerationList.optional(),
            worker: tolerationList.optional(),
        }),
        storageClass: orEmpty(dnsSubdomain).default(""),
        storageSize: z
            .string()
            .regex(/^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P)?$/, { message: "must be a Kubernetes quantity such as 10Gi" })
            .default("10Gi"),
        observability: section({
            tracing: section({
                enabled: z.boolean().default(false),
                collectorEndpoint: line().default(""),
                collectorPort: port().default(4317),
                collectorProtocol: z.enum(["http", "https", "grpc"]).default("http"),
            }),
            metrics: section({ enabled: z.boolean().default(false) }),
        }),
    }),

    observability: section({
        profile: z
            .enum(["disabled", "control", "compute", "all"], {
                message: "observability.profile must be disabled, control, compute, or all",
            })
            .default("control"),
        namespace: g(dnsLabel).default("monitoring"),
        /** Where the bundle's local charts (nvcf-otel-collector, nvcf-default-monitors) are. */
        chartsPath: g(filePath).optional(),
    }),
    metricsBackend: section({
        mode: z.enum(["install", "existing"]).default("install"),
        remoteWriteEndpoint: line().default(""),
        promqlEndpoint: line().default(""),
        authentication: section({
            mode: z.enum(["none", "token", "mtls"]).default("none"),
            authnEndpoint: line().default(""),
            clientCertificatePath: line().default(""),
            clientPrivateKeyPath: line().default(""),
        }),
    }),
    prometheusOperatorCrds: section({
        values: freeMap.default({
            crds: Object.fromEntries(
                [
                    "alertmanagerconfigs",
                    "alertmanagers",
                    "podmonitors",
                    "probes",
                    "prometheusagents",
                    "prometheuses",
                    "prometheusrules",
                    "scrapeconfigs",
                    "servicemonitors",
                    "thanosrulers",
                ].map((crd) => [crd, { enabled: crd === "podmonitors" || crd === "servicemonitors" }]),
            ),
        }),
    }),
    opentelemetryOperator: section({
        admissionWebhooks: section({
            certManager: section({ enabled: z.boolean().default(false) }),
            autoGenerateCert: section({ recreate: z.boolean().default(false) }),
        }),
        manager: section({
            collectorImage: freeMap.default({
                repository: "ghcr.io/open-telemetry/opentelemetry-collector-releases/opentelemetry-collector-contrib",
                tag: "0.129.1",
            }),
            targetAllocatorImage: freeMap.optional(),
        }),
    }),
    collector: section({
        collectorName: g(dnsLabel).default("nvcf-observability"),
        image: g(imageReference).default("ghcr.io/open-telemetry/opentelemetry-collector-releases/opentelemetry-collector-contrib:0.129.1"),
        targetAllocator: freeMap.default({
            allocationStrategy: "consistent-hashing",
            prometheusCR: {
                enabled: true,
                serviceMonitorSelector: { matchLabels: { "nvcf.nvidia.com/observability-target": "true" } },
                podMonitorSelector: { matchLabels: { "nvcf.nvidia.com/observability-target": "true" } },
                serviceMonitorNamespaceSelector: {},
                podMonitorNamespaceSelector: {},
            },
        }),
        config: freeMap.default({ receivers: { prometheus: { config: { scrape_configs: [] } } } }),
    }),
    defaultMonitors: freeMap.default({}),

    functionAutoscaler: section({
        region: line().default("local"),
        cassandra: section({
            contactPoints: line().default("cassandra.cassandra-system.svc.cluster.local"),
            isDevelopment: z.boolean().default(false),
        }),
        nvcfApi: section({
            grpcAddress: line().default("http://api.nvcf.svc.cluster.local:9090"),
            disableAuth: z.boolean().default(false),
            dryRun: z.boolean().default(false),
        }),
        timeseriesDb: section({ ignoreEnv: z.boolean().default(true) }),
        image: imageTag,
    }),

    accounts: section({
        // The bundle silently turns an accounts.limits value of 0 into its default; here 0 is an error.
        limits: section({
            maxFunctions: accountLimit("maxFunctions", 50),
            maxTasks: accountLimit("maxTasks", 50),
            maxTelemetries: accountLimit("maxTelemetries", 25),
            maxRegistryCreds: accountLimit("maxRegistryCreds", 25),
        }),
    }),

    nats: section({
        enabled: z.boolean().default(true),
        podDisruptionBudget: freeMap.default({ enabled: false, merge: { spec: { minAvailable: 2 } } }),
        workerAuth: z.enum(["nkey", "token"], { message: "nats.workerAuth must be nkey or token" }).default("nkey"),
        authCallout: section({
            workerTokenAuth: section({
                webhookUrl: line().default("http://api.nvcf.svc.cluster.local:8080/v2/nvcf/webhook/nats-auth"),
            }),
        }),
        podAnnotations,
    }),

    cassandra: section({
        enabled: z.boolean().default(true),
        replicaCount: int32(1).default(3),
        resourcesPreset: z.enum(["none", "nano", "micro", "small", "medium", "large", "xlarge", "2xlarge"]).default("xlarge"),
        podDisruptionBudget: pdbWith({ minAvailable: 2 }),
        image: imageTag,
        migrations: section({
            image: section({ tag: tag().default(""), pullPolicy: pullPolicy().default("") }),
        }),
    }),

    certManager: section({
        enabled: z.boolean().default(true),
        /** The runbook keeps the cert-manager namespace unless its removal is confirmed. */
        deleteNamespaceOnDestroy: z.boolean().default(false),
    }),

    openbao: section({
        enabled: z.boolean().default(true),
        migrations: z
            .looseObject({
                issuerDiscovery: section({ enabled: z.boolean().default(false) }),
                image: imageTag,
            })
            .prefault({}),
        injector: section({
            replicas: int32(1).default(2),
            webhook: freeMap.default({ failurePolicy: "Ignore" }),
            podDisruptionBudget: section({ minAvailable: int32(0).default(1) }),
        }),
        server: section({
            ha: section({ disruptionBudget: pdbWith({ maxUnavailable: 1 }) }),
            annotations: podAnnotations,
        }),
        /** The JWT secrets plugin's upgrade path (1.0.4 upgrade): `bridge` keeps the old plugin beside the new one, then `versioned`. Unset: the chart's default. */
        jwtPluginLifecycle: section({ mode: z.enum(["bridge", "versioned"]).optional() }),
    }),

    addons: section({
        lls: section({
            enabled: z.boolean().default(false),
            hmacRotation: section({ image: imageTag }),
        }),
        llm: section({
            enabled: z.boolean().default(false),
            pki: section({
                enabled: z.boolean().default(false),
                mode: z.enum(["certManager", "existingSecret"]).default("certManager"),
                allowedDomains: line().default(""),
                dnsNames: z.array(g(hostname)).default([]),
                secretName: g(dnsSubdomain).optional(),
                issuerKind: z.enum(["ClusterIssuer", "Issuer"]).default("ClusterIssuer"),
                issuerName: g(dnsSubdomain).default("nvcf-openbao-pki"),
                clusterIssuer: z.strictObject({ enabled: z.boolean() }).optional(),
                namespace: g(dnsLabel).default("vault-system"),
                mountPath: g(filePath).default("/etc/stargate/tls"),
                certPath: g(filePath).default("/etc/stargate/tls/tls.crt"),
                keyPath: g(filePath).default("/etc/stargate/tls/tls.key"),
                image: section({
                    registry: g(registryHost).optional(),
                    repository: g(repositoryPath).optional(),
                    tag: tag().optional(),
                    pullPolicy: pullPolicy().default("IfNotPresent"),
                }),
            }),
            gateway: section({
                replicaCount: int32(0).default(3),
                image: section({
                    registry: g(registryHost).optional(),
                    repository: g(repositoryPath).optional(),
                    tag: tag().default(""),
                    pullPolicy: pullPolicy().default(""),
                }),
                auth: section({ grpcInsecure: z.boolean().default(false) }),
                metrics: section({
                    enabled: z.boolean().default(true),
                    serviceMonitor: z.strictObject({ enabled: z.boolean() }).optional(),
                }),
            }),
            requestRouter: section({
                replicaCount: int32(0).default(3),
                service: section({ grpcPort: port().default(50071) }),
                metrics: section({
                    enabled: z.boolean().default(true),
                    serviceMonitor: z.strictObject({ enabled: z.boolean() }).optional(),
                }),
                loadBalancer: freeMap.optional(),
            }),
        }),
        vanityGateway: section({
            enabled: z.boolean().default(false),
            replicaCount: int32(0).default(2),
            image: section({ tag: tag().default(""), pullPolicy: pullPolicy().default("IfNotPresent") }),
            config: section({
                mappingPath: g(filePath).default("/etc/vanity-gateway/config/config.yaml"),
                nvcfApiEndpoint: line().default("http://invocation.nvcf.svc.cluster.local:8080"),
                secretsPath: line().default(""),
                privateModelNameRegexPattern: z.string().default(""),
                awsRegion: line().default(""),
                shadowMaxConcurrent: int32(1).default(256),
            }),
            mappingConfig: freeMap.default({ v2config: { openai: {}, vanity: {} } }),
            serviceMonitor: section({
                enabled: z.boolean().default(false),
                interval: g({
                    what: "a Prometheus duration",
                    allowed: "a duration such as 30s, 1m or 1h30m",
                    check: (v) => (/^([0-9]+(ms|s|m|h|d|w|y))+$/.test(v) ? undefined : "it is not a number and a unit"),
                }).default("60s"),
                labels: labels(),
            }),
            service: freeMap.default({}),
            serviceAccount: freeMap.default({}),
            podAnnotations,
            podLabels: labels(),
            podSecurityContext: freeMap.default({}),
            securityContext: freeMap.default({}),
            resources: freeMap.default({}),
            nodeSelector: labels(),
            tolerations: tolerationList.default([]),
            affinity: freeMap.default({}),
        }),
        nvcfUi: section({
            enabled: z.boolean().default(false),
            openbaoMigrations: section({ image: imageTag }),
        }),
    }),

    stateMetrics: section({
        enabled: z.boolean().default(true),
        serviceMonitor: section({ enabled: z.boolean().default(false) }),
    }),
    rateLimiter: section({
        enabled: z.boolean().default(true),
        replicaCount: int32(1).default(1),
        podDisruptionBudget: servicePdb(),
    }),

    api: section({
        podAnnotations,
        image: section({
            name: g(repositoryPath).default("nvcf-service-oss"),
            repository: g(imageName).optional(),
            tag: tag().optional(),
        }),
        icmsBaseUrl: line().optional(),
        jwt: section({ issuerUri: line().optional(), jwkSetUri: line().optional() }),
    }),
    nvctApi: section({
        podAnnotations,
        icmsBaseUrl: line().optional(),
        jwt: section({ issuerUri: line().optional(), jwkSetUri: line().optional() }),
    }),
    apikeys: section({ podAnnotations, podDisruptionBudget: servicePdb() }),
    ess: section({ podAnnotations, podDisruptionBudget: servicePdb() }),
    invocation: section({
        podAnnotations,
        podDisruptionBudget: servicePdb(),
        // base.yaml's invocation.env is dead config (global.yaml.gotmpl never reads it); accepted so env files carry over.
        env: z.record(z.string(), z.string()).optional(),
        tracing: section({ baggageAttributeAllowlist: z.array(line()).optional() }),
    }),
    grpcproxy: section({
        podAnnotations,
        podDisruptionBudget: servicePdb(),
        nvcfGrpcServiceURL: line().default(""),
        workerConnectBaseURL: line().default(""),
    }),
    natsAuthCalloutService: section({
        podAnnotations,
        // Only logging reaches the auth callout (1.1.0); other serviceConfig keys would be ignored.
        serviceConfig: section({
            logging: z
                .strictObject({
                    level: z.enum(["debug", "info", "warn", "error"]).optional(),
                    sampling: z.strictObject({ initial: int32(0) }).optional(),
                })
                .optional(),
        }),
    }),
    sis: section({ image: imageTag }),
    adminIssuerProxy: section({
        enabled: z.boolean().default(true),
        gateway: section({ enabled: z.boolean().default(true) }),
        podDisruptionBudget: servicePdb(),
    }),
    functionautoscaler: section({ podDisruptionBudget: servicePdb() }),
    reval: section({ podDisruptionBudget: servicePdb() }),
    llmApiGateway: section({ podDisruptionBudget: servicePdb() }),
    llmRequestRouter: section({ podDisruptionBudget: servicePdb() }),

    ingress: section({
        gatewayApi: section({
            enabled: z.boolean().default(true),
            // "" is the bundle's unset; the rules require it where the release needs it.
            controllerNamespace: orEmpty(dnsLabel).default(""),
            routes: section({
                nvcfApi: section({
                    routeAnnotations: annotations(),
                    grpc: section({ enabled: z.boolean().default(false), hostnames: z.array(g(hostname)).default([]) }),
                }),
                nvctApi: section({
                    routeAnnotations: annotations(),
                    grpc: section({ enabled: z.boolean().default(false), hostnames: z.array(g(hostname)).default([]) }),
                }),
                apiKeys: section({ routeAnnotations: annotations() }),
                invocation: section({ routeAnnotations: annotations() }),
                llmInvocation: section({ routeAnnotations: annotations() }),
                vanityGateway: section({
                    hostnames: z.array(g(hostname)).default([]),
                    routeAnnotations: annotations(),
                    backend: section({
                        name: g(dnsLabel).default("vanity-gateway"),
                        namespace: g(dnsLabel).default("nvcf"),
                        port: port().default(8080),
                    }),
                }),
                nvcfUi: section({ routeAnnotations: annotations() }),
                grpc: section({ routeAnnotations: annotations() }),
                grpcWorker: section({
                    enabled: z.boolean().default(false),
                    listenerName: g(dnsLabel).default("worker-tcp"),
                    routeAnnotations: annotations(),
                }),
                nats: section({
                    enabled: z.boolean().default(false),
                    routeAnnotations: annotations(),
                }),
                ess: section({
                    enabled: z.boolean().default(false),
                    routeAnnotations: annotations(),
                }),
            }),
            /**
             * Not in the bundle: the Gateway prerequisites (CRDs, Envoy Gateway, GatewayClass and
             * Gateways) installed by the stack instead of by hand before it.
             */
            install: section({
                enabled: z.boolean().default(false),
                /** A local YAML file with the Gateway API CRDs (the bundle's: v1.2.0, experimental channel). */
                crdsManifest: g(filePath).optional(),
                gatewayClassName: g(dnsSubdomain).default("eg"),
                envoyGateway: section({
                    /** Required when enabled: the reference pins no Envoy Gateway chart version. */
                    version: g(chartVersion, { message: "version must be a semantic version" }).optional(),
                    repository: chartRepository(),
                    values: freeMap.default({}),
                }),
            }),
            gateways: section({
                shared: section({ name: orEmpty(dnsSubdomain).default(""), namespace: orEmpty(dnsLabel).default("") }),
                grpc: section({ name: orEmpty(dnsSubdomain).default(""), namespace: orEmpty(dnsLabel).default("") }),
                nats: section({
                    name: orEmpty(dnsSubdomain).default(""),
                    namespace: orEmpty(dnsLabel).default(""),
                    listenerName: g(dnsLabel).default("nats"),
                }),
            }),
        }),
    }),
});

export type ControlPlaneConfig = z.infer<typeof controlPlaneSchema>;

/** The equivalent of a Helmfile release's own `values:` block, plus a spot-upgrade version pin. */
export const releaseOverrideSchema = z.strictObject({
    version: g(chartVersion, { message: "version must be a semantic version" }).optional(),
    values: freeMap.optional(),
});
export type ReleaseOverride = z.infer<typeof releaseOverrideSchema>;

/** How the program reaches the control-plane cluster. */
export const clusterSchema = z
    .strictObject({
        /** A kubeconfig context; the kubeconfig is the `kubeconfig` secret, else $KUBECONFIG/~/.kube/config. */
        context: g(singleLine).min(1).optional(),
        /** An EKS cluster by name instead of a kubeconfig: endpoint, CA and `aws eks get-token`. */
        eks: eksClusterSchema.optional(),
        /**
         * A stable identity for the cluster, so a change of credentials or endpoint never
         * replaces every resource on it.
         */
        clusterIdentifier: g(singleLine).min(1).default("control-plane"),
        /** Skip Helm's wait for workloads (a cluster with no nodes, such as the end-to-end suite). */
        skipAwait: z.boolean().default(false),
    })
    .prefault({});

/** Registry credentials: the Kubernetes pull secret, and the account registry hostnames. */
export const registrySchema = z
    .strictObject({
        pullSecret: section({
            /** false when nodes or workloads pull with their own identity (the runbook's mirror setup). */
            enabled: z.boolean().default(true),
            name: g(dnsSubdomain).default("nvcr-pull-secret"),
            /** Defaults to `global.image.registry`. */
            server: g(registryHost).optional(),
            username: g(registryUsername).default("$oauthtoken"),
            /**
             * values: each chart's `imagePullSecrets` name the secret. kyverno: a Kyverno ClusterPolicy
             * adds it to every pod of the stack's namespaces, and the charts' values leave it out.
             */
            mode: z.enum(["values", "kyverno"]).default("values"),
        }),
        /** Kyverno, for `pullSecret.mode: kyverno`: installed by the stack, or already on each cluster. */
        kyverno: section({
            install: z.boolean().default(false),
            /** Required with install: the reference pins no Kyverno chart version. */
            version: g(chartVersion, { message: "version must be a semantic version" }).optional(),
            repository: chartRepository(),
            namespace: g(dnsLabel).default("kyverno"),
            values: freeMap.default({}),
        }),
        account: section({
            username: g(registryUsername).default("$oauthtoken"),
            containerRegistryHostname: g(registryHost).default("nvcr.io"),
            helmRegistryHostname: g(registryHost).default("helm.ngc.nvidia.com"),
        }),
    })
    .prefault({});

/** How the admin-issuer-proxy grant revocation reaches OpenBao (only used with the proxy disabled). */
export const openbaoAccessSchema = z
    .strictObject({
        /** An OpenBao address this program reaches directly; unset: through the API server to openbao-server-0. */
        address: url(/^https?$/).optional(),
        /** The scheme of OpenBao's in-cluster listener (the bundle serves plain http on 8200). */
        scheme: z.enum(["http", "https"]).default("http"),
        /** PEM CA certificate for `address`. */
        caCert: z.string().optional(),
        /** Turns certificate verification of `address` off. */
        insecureSkipVerify: z.boolean().default(false),
        timeoutSeconds: z.number().int().min(1).max(600).default(30),
        retries: z.number().int().min(0).max(10).default(3),
    })
    .prefault({});
