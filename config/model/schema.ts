import { z } from "zod";
import { eksClusterSchema } from "./aws-schema";
import { overBundleBase } from "./bundle-base";
import {
    chartVersion,
    dnsLabel,
    dnsSubdomain,
    fieldPath,
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
import { stringFieldsOnly } from "./free-values";

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

/** Chart values passed through as they are, except where Kubernetes takes only strings (config/free-values.ts). */
const freeMap = z.record(z.string(), z.unknown()).superRefine(stringFieldsOnly);
/** Where a cluster prerequisite's chart comes from, when not from its public repository (a mirror). */
const chartRepository = () =>
    g(filePath)
        .regex(/^(https?:\/\/|oci:\/\/|\/|\.\.?\/)/, { message: "must be an https URL, an oci:// repository or a path" })
        .optional();
/** The bundle's placeholder org/team: accepted here so the rules can say what it is. */
const PLACEHOLDER_REPOSITORY = "YOUR_ORG/YOUR_TEAM";
const line = () => g(singleLine);
const annotations = () => stringMap(qualifiedName);
const labels = () => stringMap(qualifiedName, labelValue);

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

/**
 * A PodDisruptionBudget block of an NVCF chart. The charts fail unless exactly one bound is set,
 * and read "" as unset (the rules say so before any chart does).
 */
const pdb = z.strictObject({
    enabled: z.boolean(),
    minAvailable: pdbBound().optional(),
    maxUnavailable: pdbBound().optional(),
});

/** A node selector of one workload type; null (the bundle's documented form) falls back to `all`. */
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
    return z.number().int().min(1, { message }).max(max, { message });
}

/** An image tag; "" (the bundle's default) leaves the chart's own. */
const tag = () => orEmpty(tagGrammar);
const pullPolicy = () => z.enum(PULL_POLICIES);
const optionalTag = () => section({ tag: tag().optional() });
/** Where an observability component comes from: the stack installs it, it exists already, or none. */
const componentMode = () => z.enum(["install", "existing", "disabled"]).optional();
/** A route's backend Service, as the nvcf-ui values read it (a partial override keeps the other fields). */
const backend = () =>
    z.strictObject({ name: g(dnsLabel).optional(), namespace: g(dnsLabel).optional(), port: port().optional() }).optional();
function route<T extends z.core.$ZodLooseShape = Record<never, never>>(extra: T = {} as T) {
    return z.strictObject({ routeAnnotations: annotations(), backend: backend(), ...extra });
}
function gateway<T extends z.core.$ZodLooseShape = Record<never, never>>(extra: T = {} as T) {
    return z.strictObject({ name: orEmpty(dnsSubdomain), namespace: orEmpty(dnsLabel), ...extra });
}
const chartVersionKey = () => g(chartVersion, { message: "version must be a semantic version" });
const quantity = () =>
    z.string().regex(/^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P)?$/, { message: "must be a Kubernetes quantity such as 10Gi" });

/**
 * The environment's shape, key for key as NVIDIA's `environments/<env>.yaml`. A key of the
 * bundle's `base.yaml` files has no default here: `controlPlaneSchema` merges the environment over
 * them first (config/bundle-base.ts). The defaults below are those of keys the bundle's templates
 * read with a fallback of their own, of the NVCF 1.1.0 keys, and of this program's own keys.
 */
export const environmentSchema = z.strictObject({
    global: z.strictObject({
        domain: g(dnsSubdomain, { message: "global.domain must be a DNS name", allowed: false }),
        helm: z.strictObject({
            sources: z.strictObject({
                registry: g(registryHost),
                repository: g(repositoryPath, { also: [PLACEHOLDER_REPOSITORY] }),
                url: url(/^https?$/).optional(),
                username: g(registryUsername).optional(),
                // The bundle reads a password here; this program keeps it a Pulumi secret instead.
                password: z
                    .unknown()
                    .refine(() => false, {
                        message:
                            "a password does not belong in the stack file: set it with `pulumi config set --secret chartRegistryPassword`",
                        params: { allowed: "no password here (the chartRegistryPassword secret, or ngcApiKey)" },
                    })
                    .optional(),
                path: g(filePath).optional(),
            }),
        }),
        imagePullSecrets: z.array(z.strictObject({ name: g(dnsSubdomain) })),
        image: z.strictObject({
            registry: g(registryHost),
            repository: g(repositoryPath, { also: [PLACEHOLDER_REPOSITORY] }),
        }),
        workerEndpoints: z.strictObject({
            nvcfServiceURL: line(),
            nvcfGrpcServiceURL: line(),
            nvcfNatsServiceURL: line(),
            essServiceURL: line(),
            nvctServiceURL: line(),
            nvctGrpcServiceURL: line(),
            invocationServiceURL: line(),
            grpcProxyWorkerConnectURL: line(),
            llmRequestRouterAddress: line(),
        }),
        nodeSelectors: z.strictObject({
            enabled: z.boolean(),
            all: nodeSelectorEntry.optional(),
            vault: nodeSelectorEntry.optional(),
            cassandra: nodeSelectorEntry.optional(),
            controlplane: nodeSelectorEntry.optional(),
            worker: nodeSelectorEntry.optional(),
        }),
        tolerations: z.strictObject({
            enabled: z.boolean(),
            all: tolerationList.nullable().optional(),
            vault: tolerationList.nullable().optional(),
            cassandra: tolerationList.nullable().optional(),
            controlplane: tolerationList.nullable().optional(),
            worker: tolerationList.nullable().optional(),
        }),
        storageClass: orEmpty(dnsSubdomain),
        storageSize: quantity(),
        observability: z.strictObject({
            tracing: z.strictObject({
                enabled: z.boolean(),
                collectorEndpoint: line(),
                collectorPort: port(),
                collectorProtocol: z.enum(["http", "https", "grpc"]),
            }),
            metrics: z.strictObject({ enabled: z.boolean() }),
        }),
    }),

    observability: z.strictObject({
        profile: z.enum(["disabled", "control", "compute", "all"], {
            message: "observability.profile must be disabled, control, compute, or all",
        }),
        namespace: g(dnsLabel),
        /** Where the bundle's local charts (nvcf-otel-collector, nvcf-default-monitors) are. */
        chartsPath: g(filePath).optional(),
        /** Each unset mode is `install` with a profile, `disabled` without (config/derived-facts.ts). */
        components: section({
            prometheusOperatorCrds: section({ mode: componentMode() }),
            otelOperator: section({ mode: componentMode() }),
            collector: section({ mode: componentMode() }),
            targetAllocator: section({ mode: componentMode() }),
            discoveryRbac: section({ mode: componentMode() }),
        }),
    }),
    metricsBackend: z.strictObject({
        /** victoriaMetrics with mode install, external with mode existing (the observability bundle's rule). */
        type: z.enum(["victoriaMetrics", "external"]),
        /** Unset: install with a profile, disabled without. */
        mode: componentMode(),
        remoteWriteEndpoint: line(),
        promqlEndpoint: line(),
        authentication: z.strictObject({
            mode: z.enum(["none", "token", "mtls"], { message: "metricsBackend.authentication.mode must be none, token, or mtls" }),
            authnEndpoint: line(),
            clientCertificatePath: line(),
            clientPrivateKeyPath: line(),
        }),
    }),
    prometheusOperatorCrds: z.strictObject({
        version: chartVersionKey(),
        namespace: g(dnsLabel).optional(),
        values: freeMap,
    }),
    opentelemetryOperator: z.strictObject({
        version: chartVersionKey(),
        namespace: g(dnsLabel).optional(),
        admissionWebhooks: z.strictObject({
            certManager: z.strictObject({ enabled: z.boolean() }),
            autoGenerateCert: z.strictObject({ recreate: z.boolean() }),
        }),
        manager: z.strictObject({ collectorImage: freeMap, targetAllocatorImage: freeMap.optional() }),
    }),
    collector: z.strictObject({
        namespace: g(dnsLabel).optional(),
        collectorName: g(dnsLabel),
        image: g(imageReference),
        targetAllocator: freeMap,
        config: freeMap,
    }),
    victoriaMetrics: z.strictObject({
        version: chartVersionKey(),
        namespace: g(dnsLabel).optional(),
        server: z.strictObject({
            // The values file quotes it: 1 and "1" are the same one month.
            retentionPeriod: z.union([z.string(), z.number()]).transform(String),
            persistentVolume: z.strictObject({ enabled: z.boolean(), size: quantity(), storageClass: orEmpty(dnsSubdomain) }),
            resources: freeMap,
        }),
        serviceMonitor: z.strictObject({ enabled: z.boolean() }),
    }),
    // Passed to the default-monitors chart whole; `namespace` is also that release's namespace.
    defaultMonitors: z.looseObject({ namespace: g(dnsLabel).optional() }),

    functionAutoscaler: z.strictObject({
        region: line(),
        cassandra: z.strictObject({ contactPoints: line(), isDevelopment: z.boolean() }),
        nvcfApi: z.strictObject({ grpcAddress: line(), disableAuth: z.boolean(), dryRun: z.boolean() }),
        timeseriesDb: z.strictObject({ ignoreEnv: z.boolean() }),
        image: optionalTag(),
    }),

    accounts: z.strictObject({
        // The bundle silently turns an accounts.limits value of 0 into its default; here 0 is an error.
        limits: z.strictObject({
            maxFunctions: accountLimit("maxFunctions", 50),
            maxTasks: accountLimit("maxTasks", 50),
            maxTelemetries: accountLimit("maxTelemetries", 25),
            maxRegistryCreds: accountLimit("maxRegistryCreds", 25),
        }),
    }),

    nats: z.strictObject({
        enabled: z.boolean(),
        // The upstream nats chart's own block (`merge` patches the PDB object).
        podDisruptionBudget: freeMap,
        workerAuth: z.enum(["nkey", "token"], { message: "nats.workerAuth must be nkey or token" }).default("nkey"),
        authCallout: section({
            workerTokenAuth: section({
                webhookUrl: line().default("http://api.nvcf.svc.cluster.local:8080/v2/nvcf/webhook/nats-auth"),
            }),
        }),
        podAnnotations,
    }),

    cassandra: z.strictObject({
        enabled: z.boolean(),
        replicaCount: int32(1).default(3),
        resourcesPreset: z.enum(["none", "nano", "micro", "small", "medium", "large", "xlarge", "2xlarge"]),
        podDisruptionBudget: pdb,
        image: optionalTag(),
        migrations: section({
            image: section({ tag: tag().optional(), pullPolicy: pullPolicy().optional() }),
        }),
    }),

    certManager: z.strictObject({
        enabled: z.boolean(),
        /** The runbook keeps the cert-manager namespace unless its removal is confirmed. */
        deleteNamespaceOnDestroy: z.boolean().default(false),
    }),

    openbao: z.strictObject({
        enabled: z.boolean(),
        // Passed to the chart whole, `image` aside (global.yaml.gotmpl builds it).
        migrations: z.looseObject({
            issuerDiscovery: z.looseObject({ enabled: z.boolean() }),
            image: optionalTag(),
        }),
        injector: z.strictObject({
            replicas: int32(1),
            webhook: freeMap,
            podDisruptionBudget: z.strictObject({ minAvailable: int32(0) }),
        }),
        server: z.strictObject({
            ha: z.strictObject({
                disruptionBudget: z.strictObject({
                    enabled: z.boolean(),
                    minAvailable: pdbBound().optional(),
                    // null: the upstream chart derives it from the replica count.
                    maxUnavailable: pdbBound().nullable().optional(),
                }),
            }),
            annotations: podAnnotations,
        }),
        /** The JWT secrets plugin's upgrade path (1.0.4 upgrade): `bridge` keeps the old plugin beside the new one, then `versioned`. Unset: the chart's default. */
        jwtPluginLifecycle: section({ mode: z.enum(["bridge", "versioned"]).optional() }),
    }),

    addons: z.strictObject({
        lls: z.strictObject({
            enabled: z.boolean(),
            hmacRotation: section({ image: optionalTag() }),
        }),
        llm: z.strictObject({
            enabled: z.boolean(),
            pki: z.strictObject({
                enabled: z.boolean(),
                mode: z.enum(["certManager", "existingSecret"]),
                allowedDomains: line(),
                dnsNames: z.array(g(hostname)),
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
                    tag: tag().optional(),
                    pullPolicy: pullPolicy().optional(),
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
        vanityGateway: z.strictObject({
            enabled: z.boolean(),
            replicaCount: int32(0),
            image: z.strictObject({ tag: tag(), pullPolicy: pullPolicy() }),
            config: z.strictObject({
                mappingPath: g(filePath),
                nvcfApiEndpoint: line(),
                secretsPath: line(),
                privateModelNameRegexPattern: z.string(),
                awsRegion: line(),
                shadowMaxConcurrent: int32(1),
            }),
            mappingConfig: freeMap,
            serviceMonitor: z.strictObject({
                enabled: z.boolean(),
                interval: g({
                    what: "a Prometheus duration",
                    allowed: "a duration such as 30s, 1m or 1h30m",
                    check: (v) => (/^([0-9]+(ms|s|m|h|d|w|y))+$/.test(v) ? undefined : "it is not a number and a unit"),
                }),
                labels: labels(),
            }),
            service: freeMap,
            serviceAccount: freeMap,
            podAnnotations,
            podLabels: labels(),
            podSecurityContext: freeMap,
            securityContext: freeMap,
            resources: freeMap,
            nodeSelector: labels(),
            tolerations: tolerationList,
            affinity: freeMap,
        }),
        nvcfUi: z.strictObject({
            enabled: z.boolean(),
            openbaoMigrations: section({ image: optionalTag() }),
        }),
    }),

    stateMetrics: z.strictObject({
        enabled: z.boolean(),
        serviceMonitor: z.strictObject({ enabled: z.boolean() }),
    }),
    rateLimiter: z.strictObject({
        enabled: z.boolean(),
        replicaCount: int32(1),
        podDisruptionBudget: pdb,
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
    apikeys: z.strictObject({ podAnnotations, podDisruptionBudget: pdb }),
    ess: z.strictObject({ podAnnotations, podDisruptionBudget: pdb }),
    invocation: z.strictObject({
        podAnnotations,
        podDisruptionBudget: pdb,
        // base.yaml's invocation.env is dead config (global.yaml.gotmpl never reads it); accepted so env files carry over.
        env: z.record(z.string(), z.unknown()),
        tracing: section({ baggageAttributeAllowlist: z.array(line()).optional() }),
    }),
    grpcproxy: z.strictObject({
        podAnnotations,
        podDisruptionBudget: pdb,
        nvcfGrpcServiceURL: line(),
        workerConnectBaseURL: line(),
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
    sis: section({ image: optionalTag() }),
    adminIssuerProxy: z.strictObject({
        enabled: z.boolean().default(true),
        gateway: section({ enabled: z.boolean().default(true) }),
        podDisruptionBudget: pdb,
    }),
    functionautoscaler: z.strictObject({ podDisruptionBudget: pdb }),
    reval: z.strictObject({ podDisruptionBudget: pdb }),
    llmApiGateway: z.strictObject({ podDisruptionBudget: pdb }),
    llmRequestRouter: z.strictObject({ podDisruptionBudget: pdb }),

    ingress: z.strictObject({
        gatewayApi: z.strictObject({
            enabled: z.boolean(),
            // "" is the bundle's unset; the rules require it where the release needs it.
            controllerNamespace: orEmpty(dnsLabel),
            routes: z.strictObject({
                nvcfApi: route({ grpc: z.strictObject({ enabled: z.boolean(), hostnames: z.array(g(hostname)) }) }),
                nvctApi: route({ grpc: z.strictObject({ enabled: z.boolean(), hostnames: z.array(g(hostname)) }) }),
                apiKeys: route(),
                invocation: route(),
                llmInvocation: route(),
                vanityGateway: route({ hostnames: z.array(g(hostname)) }),
                nvcfUi: route(),
                grpc: route(),
                grpcWorker: route({ enabled: z.boolean(), listenerName: g(dnsLabel) }),
                nats: route({ enabled: z.boolean() }),
                ess: route({ enabled: z.boolean() }),
                // Not a route of the routes chart: only the nvcf-ui values read its backend.
                sis: z.strictObject({ backend: backend() }).optional(),
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
                    version: chartVersionKey().optional(),
                    repository: chartRepository(),
                    values: freeMap.default({}),
                }),
            }),
            gateways: z.strictObject({
                shared: gateway(),
                grpc: gateway(),
                nats: gateway({ listenerName: g(dnsLabel) }),
            }),
        }),
    }),
});

/** The environment as the program uses it: the user's keys deep-merged over the bundle's base.yaml, then checked. */
export const controlPlaneSchema = z.preprocess(overBundleBase, environmentSchema);

export type ControlPlaneConfig = z.output<typeof environmentSchema>;

/** The equivalent of a Helmfile release's own `values:` block, plus a spot-upgrade version pin. */
export const releaseOverrideSchema = z.strictObject({
    version: g(chartVersion, { message: "version must be a semantic version" }).optional(),
    values: freeMap.optional(),
    /** warn (unset): drift is reported (`npm run status`); correct: `pulumi up` also puts the release's objects back as Helm recorded them. */
    drift: z.enum(["warn", "correct"], { message: "drift must be warn or correct" }).optional(),
    /** With `drift: correct`: the PersistentVolumeClaims of the release that may be re-created (any other is left: it holds data). */
    driftCorrectClaims: z.array(g(dnsSubdomain)).optional(),
    /** Fields of the release's objects that change by design: `npm run status` does not report them as drift. */
    driftIgnore: z
        .array(
            z.strictObject({
                kind: g(singleLine).min(1).optional(),
                name: g(singleLine).min(1).optional(),
                path: g(fieldPath),
            }),
        )
        .optional(),
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
