import { z } from "zod";
import { eksClusterSchema } from "./aws-schema";

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
const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dnsName = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

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
            if (typeof value !== "string") {
                ctx.addIssue({
                    code: "custom",
                    path: [key],
                    input: value,
                    message: "annotation values must be strings (quote numbers and booleans)",
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
    minAvailable: z.union([z.number().int(), z.string()]).optional(),
    maxUnavailable: z.union([z.number().int(), z.string()]).optional(),
});
function pdbWith(defaults: { maxUnavailable?: number; minAvailable?: number }) {
    return pdb.prefault(defaults);
}
const servicePdb = () => pdbWith({ maxUnavailable: 1 });

const nodeSelectorEntry = z.strictObject({ key: z.string().min(1), value: z.string() }).nullable();
export const toleration = z.looseObject({
    key: z.string().optional(),
    operator: z.enum(["Exists", "Equal"]).optional(),
    value: z.string().optional(),
    effect: z.string().optional(),
    tolerationSeconds: z.number().int().optional(),
});
const tolerationList = z.array(toleration);

function accountLimit(name: string, max: number) {
    const message = `accounts.limits.${name} must be greater than 0 and less than or equal to ${max}`;
    return z.number().int().min(1, { message }).max(max, { message }).default(10);
}

const imageTag = section({ tag: z.string().default("") });

export const controlPlaneSchema = z.strictObject({
    global: section({
        domain: z
            .string()
            .regex(dnsName, { message: "global.domain must be a DNS name" })
            .default("localhost"),
        helm: section({
            sources: section({
                registry: z.string().default("nvcr.io"),
                repository: z.string().default("YOUR_ORG/YOUR_TEAM"),
                url: z.url({ protocol: /^https?$/ }).optional(),
                username: z.string().optional(),
                path: z.string().min(1).optional(),
            }),
        }),
        imagePullSecrets: z.array(z.strictObject({ name: z.string().regex(dnsName) })).default([]),
        image: section({
            registry: z.string().min(1).default("nvcr.io"),
            repository: z.string().min(1).default("YOUR_ORG/YOUR_TEAM"),
        }),
        workerEndpoints: section({
            nvcfServiceURL: z.string().default(""),
            nvcfGrpcServiceURL: z.string().default(""),
            nvcfNatsServiceURL: z.string().default(""),
            essServiceURL: z.string().default(""),
            nvctServiceURL: z.string().default(""),
            nvctGrpcServiceURL: z.string().default(""),
            invocationServiceURL: z.string().default(""),
            grpcProxyWorkerConnectURL: z.string().default(""),
            llmRequestRouterAddress: z.string().default(""),
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
        storageClass: z.string().default(""),
        storageSize: z
            .string()
            .regex(/^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P)?$/, { message: "must be a Kubernetes quantity such as 10Gi" })
            .default("10Gi"),
        observability: section({
            tracing: section({
                enabled: z.boolean().default(false),
                collectorEndpoint: z.string().default(""),
                collectorPort: z.number().int().min(1).max(65535).default(4317),
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
        namespace: z.string().regex(dnsLabel).default("monitoring"),
        /** Where the bundle's local charts (nvcf-otel-collector, nvcf-default-monitors) are. */
        chartsPath: z.string().min(1).optional(),
    }),
    metricsBackend: section({
        mode: z.enum(["install", "existing"]).default("install"),
        remoteWriteEndpoint: z.string().default(""),
        promqlEndpoint: z.string().default(""),
        authentication: section({
            mode: z.enum(["none", "token", "mtls"]).default("none"),
            authnEndpoint: z.string().default(""),
            clientCertificatePath: z.string().default(""),
            clientPrivateKeyPath: z.string().default(""),
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
                repository:
                    "ghcr.io/open-telemetry/opentelemetry-collector-releases/opentelemetry-collector-contrib",
                tag: "0.129.1",
            }),
            targetAllocatorImage: freeMap.optional(),
        }),
    }),
    collector: section({
        collectorName: z.string().default("nvcf-observability"),
        image: z
            .string()
            .default(
                "ghcr.io/open-telemetry/opentelemetry-collector-releases/opentelemetry-collector-contrib:0.129.1",
            ),
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
        region: z.string().default("local"),
        cassandra: section({
            contactPoints: z.string().default("cassandra.cassandra-system.svc.cluster.local"),
            isDevelopment: z.boolean().default(false),
        }),
        nvcfApi: section({
            grpcAddress: z.string().default("http://api.nvcf.svc.cluster.local:9090"),
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
        workerAuth: z
            .enum(["nkey", "token"], { message: "nats.workerAuth must be nkey or token" })
            .default("nkey"),
        authCallout: section({
            workerTokenAuth: section({
                webhookUrl: z.string().default("http://api.nvcf.svc.cluster.local:8080/v2/nvcf/webhook/nats-auth"),
            }),
        }),
        podAnnotations,
    }),

    cassandra: section({
        enabled: z.boolean().default(true),
        replicaCount: z.number().int().min(1).default(3),
        resourcesPreset: z
            .enum(["none", "nano", "micro", "small", "medium", "large", "xlarge", "2xlarge"])
            .default("xlarge"),
        podDisruptionBudget: pdbWith({ minAvailable: 2 }),
        image: imageTag,
        migrations: section({
            image: section({ tag: z.string().default(""), pullPolicy: z.string().default("") }),
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
            replicas: z.number().int().min(1).default(2),
            webhook: freeMap.default({ failurePolicy: "Ignore" }),
            podDisruptionBudget: section({ minAvailable: z.number().int().min(0).default(1) }),
        }),
        server: section({
            ha: section({ disruptionBudget: pdbWith({ maxUnavailable: 1 }) }),
            annotations: podAnnotations,
        }),
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
                allowedDomains: z.string().default(""),
                dnsNames: z.array(z.string()).default([]),
                secretName: z.string().optional(),
                issuerKind: z.enum(["ClusterIssuer", "Issuer"]).default("ClusterIssuer"),
                issuerName: z.string().regex(dnsName).max(253).default("nvcf-openbao-pki"),
                clusterIssuer: z.strictObject({ enabled: z.boolean() }).optional(),
                namespace: z.string().default("vault-system"),
                mountPath: z.string().default("/etc/stargate/tls"),
                certPath: z.string().default("/etc/stargate/tls/tls.crt"),
                keyPath: z.string().default("/etc/stargate/tls/tls.key"),
                image: section({
                    registry: z.string().optional(),
                    repository: z.string().optional(),
                    tag: z.string().optional(),
                    pullPolicy: z.string().default("IfNotPresent"),
                }),
            }),
            gateway: section({
                replicaCount: z.number().int().min(0).default(3),
                image: section({
                    registry: z.string().optional(),
                    repository: z.string().optional(),
                    tag: z.string().default(""),
                    pullPolicy: z.string().default(""),
                }),
                auth: section({ grpcInsecure: z.boolean().default(false) }),
                metrics: section({
                    enabled: z.boolean().default(true),
                    serviceMonitor: z.strictObject({ enabled: z.boolean() }).optional(),
                }),
            }),
            requestRouter: section({
                replicaCount: z.number().int().min(0).default(3),
                service: section({ grpcPort: z.number().int().min(1).max(65535).default(50071) }),
                metrics: section({
                    enabled: z.boolean().default(true),
                    serviceMonitor: z.strictObject({ enabled: z.boolean() }).optional(),
                }),
                loadBalancer: freeMap.optional(),
            }),
        }),
        vanityGateway: section({
            enabled: z.boolean().default(false),
            replicaCount: z.number().int().min(0).default(2),
            image: section({ tag: z.string().default(""), pullPolicy: z.string().default("IfNotPresent") }),
            config: section({
                mappingPath: z.string().default("/etc/vanity-gateway/config/config.yaml"),
                nvcfApiEndpoint: z.string().default("http://invocation.nvcf.svc.cluster.local:8080"),
                secretsPath: z.string().default(""),
                privateModelNameRegexPattern: z.string().default(""),
                awsRegion: z.string().default(""),
                shadowMaxConcurrent: z.number().int().min(1).default(256),
            }),
            mappingConfig: freeMap.default({ v2config: { openai: {}, vanity: {} } }),
            serviceMonitor: section({
                enabled: z.boolean().default(false),
                interval: z.string().default("60s"),
                labels: z.record(z.string(), z.string()).default({}),
            }),
            service: freeMap.default({}),
            serviceAccount: freeMap.default({}),
            podAnnotations,
            podLabels: z.record(z.string(), z.string()).default({}),
            podSecurityContext: freeMap.default({}),
            securityContext: freeMap.default({}),
            resources: freeMap.default({}),
            nodeSelector: z.record(z.string(), z.string()).default({}),
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
        replicaCount: z.number().int().min(1).default(1),
        podDisruptionBudget: servicePdb(),
    }),

    api: section({
        podAnnotations,
        image: section({
            name: z.string().default("nvcf-service-oss"),
            repository: z.string().optional(),
            tag: z.string().optional(),
        }),
        icmsBaseUrl: z.string().optional(),
        jwt: section({ issuerUri: z.string().optional(), jwkSetUri: z.string().optional() }),
    }),
    nvctApi: section({
        podAnnotations,
        icmsBaseUrl: z.string().optional(),
        jwt: section({ issuerUri: z.string().optional(), jwkSetUri: z.string().optional() }),
    }),
    apikeys: section({ podAnnotations, podDisruptionBudget: servicePdb() }),
    ess: section({ podAnnotations, podDisruptionBudget: servicePdb() }),
    invocation: section({
        podAnnotations,
        podDisruptionBudget: servicePdb(),
        // base.yaml's invocation.env is dead config (global.yaml.gotmpl never reads it); accepted so env files carry over.
        env: z.record(z.string(), z.string()).optional(),
        tracing: section({ baggageAttributeAllowlist: z.array(z.string()).optional() }),
    }),
    grpcproxy: section({
        podAnnotations,
        podDisruptionBudget: servicePdb(),
        nvcfGrpcServiceURL: z.string().default(""),
        workerConnectBaseURL: z.string().default(""),
    }),
    natsAuthCalloutService: section({
        podAnnotations,
        // Only logging reaches the auth callout (1.1.0); other serviceConfig keys would be ignored.
        serviceConfig: section({
            logging: z
                .strictObject({
                    level: z.enum(["debug", "info", "warn", "error"]).optional(),
                    sampling: z.strictObject({ initial: z.number().int().min(0) }).optional(),
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
            controllerNamespace: z.string().default(""),
            routes: section({
                nvcfApi: section({
                    routeAnnotations: z.record(z.string(), z.string()).default({}),
                    grpc: section({ enabled: z.boolean().default(false), hostnames: z.array(z.string()).default([]) }),
                }),
                nvctApi: section({
                    routeAnnotations: z.record(z.string(), z.string()).default({}),
                    grpc: section({ enabled: z.boolean().default(false), hostnames: z.array(z.string()).default([]) }),
                }),
                apiKeys: section({ routeAnnotations: z.record(z.string(), z.string()).default({}) }),
                invocation: section({ routeAnnotations: z.record(z.string(), z.string()).default({}) }),
                llmInvocation: section({ routeAnnotations: z.record(z.string(), z.string()).default({}) }),
                vanityGateway: section({
                    hostnames: z.array(z.string()).default([]),
                    routeAnnotations: z.record(z.string(), z.string()).default({}),
                    backend: section({
                        name: z.string().default("vanity-gateway"),
                        namespace: z.string().default("nvcf"),
                        port: z.number().int().default(8080),
                    }),
                }),
                nvcfUi: section({ routeAnnotations: z.record(z.string(), z.string()).default({}) }),
                grpc: section({ routeAnnotations: z.record(z.string(), z.string()).default({}) }),
                grpcWorker: section({
                    enabled: z.boolean().default(false),
                    listenerName: z.string().default("worker-tcp"),
                    routeAnnotations: z.record(z.string(), z.string()).default({}),
                }),
                nats: section({
                    enabled: z.boolean().default(false),
                    routeAnnotations: z.record(z.string(), z.string()).default({}),
                }),
                ess: section({
                    enabled: z.boolean().default(false),
                    routeAnnotations: z.record(z.string(), z.string()).default({}),
                }),
            }),
            gateways: section({
                shared: section({ name: z.string().default(""), namespace: z.string().default("") }),
                grpc: section({ name: z.string().default(""), namespace: z.string().default("") }),
                nats: section({
                    name: z.string().default(""),
                    namespace: z.string().default(""),
                    listenerName: z.string().default("nats"),
                }),
            }),
        }),
    }),
});

export type ControlPlaneConfig = z.infer<typeof controlPlaneSchema>;

/** The equivalent of a Helmfile release's own `values:` block, plus a spot-upgrade version pin. */
export const releaseOverrideSchema = z.strictObject({
    version: z
        .string()
        .regex(/^v?[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$/, { message: "version must be a semantic version" })
        .optional(),
    values: freeMap.optional(),
});
export type ReleaseOverride = z.infer<typeof releaseOverrideSchema>;

/** How the program reaches the control-plane cluster. */
export const clusterSchema = z
    .strictObject({
        /** A kubeconfig context; the kubeconfig is the `kubeconfig` secret, else $KUBECONFIG/~/.kube/config. */
        context: z.string().min(1).optional(),
        /** An EKS cluster by name instead of a kubeconfig: endpoint, CA and `aws eks get-token`. */
        eks: eksClusterSchema.optional(),
        /**
         * A stable identity for the cluster, so a change of credentials or endpoint never
         * replaces every resource on it.
         */
        clusterIdentifier: z.string().min(1).default("control-plane"),
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
            name: z.string().regex(dnsName).default("nvcr-pull-secret"),
            /** Defaults to `global.image.registry`. */
            server: z.string().min(1).optional(),
            username: z.string().min(1).default("$oauthtoken"),
        }),
        account: section({
            username: z.string().min(1).default("$oauthtoken"),
            containerRegistryHostname: z.string().min(1).default("nvcr.io"),
            helmRegistryHostname: z.string().min(1).default("helm.ngc.nvidia.com"),
        }),
    })
    .prefault({});

/** How the admin-issuer-proxy grant revocation reaches OpenBao (only used with the proxy disabled). */
export const openbaoAccessSchema = z
    .strictObject({
        /** An OpenBao address this program reaches directly; unset: through the API server to openbao-server-0. */
        address: z.url({ protocol: /^https?$/ }).optional(),
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
