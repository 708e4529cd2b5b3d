import { z } from "zod";
import { eksClusterSchema } from "./aws-schema";
import { section, toleration } from "./schema";
import * as gr from "./grammar";

/**
 * One GPU cluster (compute plane), as the compute-plane bundle's environment file and
 * `make register-cluster` describe it. Defaults come from its `environments/base.yaml`.
 */

const rfc1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const url = (protocols: RegExp) => gr.url(protocols).optional();

/** Pull secret names the NVCA mirror reserves for itself: a user's pull secret must not take one. */
export const RESERVED_PULL_SECRET_NAMES = [
    "nvca-image-pull-secret",
    "ngc-service-api-key",
    "ngc-api-key",
    "oauth-client-secret-key",
    "oauth-client-id",
    "otel-nvca-config",
    "nvca-webhook-tls-server-certs",
    "nvca-webhook-tls-ca-certs",
] as const;

/** A Kubernetes quantity as the bundle's KAI values take it (`50m`, `256Mi`, `2`). */
const quantity = z.union([
    z.string().regex(/^[0-9]+(\.[0-9]+)?(m|[KMGTPE]i?)?$/, { message: "must be a Kubernetes quantity such as 500m or 2Gi" }),
    z.number().positive(),
]);
const cpuMemory = section({ cpu: quantity.optional(), memory: quantity.optional() });
/** `addons.kaiScheduler.<component>.resources`: each unset value keeps the bundle's default. */
const kaiComponent = section({ resources: section({ requests: cpuMemory, limits: cpuMemory }) });
/** Where an add-on's chart comes from, when not from the bundle's own repository. */
const addonRepository = gr
    .grammarString(gr.filePath)
    .regex(/^(https?:\/\/|oci:\/\/|\/|\.\.?\/)/, { message: "must be an https URL, an oci:// repository or a path" })
    .optional();

/**
 * The compute-plane bundle's optional GPU scheduling add-ons (`addons.*` of its environment
 * file), all off by default as in its `base.yaml`.
 */
const addonsSchema = section({
    /** MNNVL topology: KAI Topology CRs (and Grove bindings when Grove is on) from the bundle's local chart. */
    topologyAwareScheduling: section({
        enabled: z.boolean().default(false),
        /** Ordered widest domain first, narrowest last. */
        topologies: z
            .array(
                z.strictObject({
                    name: z.string().regex(rfc1123, { message: "must be an RFC 1123 name" }),
                    levels: z
                        .array(z.strictObject({ nodeLabel: gr.grammarString(gr.qualifiedName) }))
                        .min(1, { message: "needs at least one level, widest domain first" }),
                }),
            )
            .default([
                {
                    name: "nvcf-mnnvl-topology",
                    levels: [{ nodeLabel: "nvidia.com/gpu.clique" }, { nodeLabel: "kubernetes.io/hostname" }],
                },
            ]),
        /** A directory holding the bundle's `nvcf-cluster-topology` chart (no chart registry publishes it). */
        chartsPath: gr.grammarString(gr.filePath).optional(),
        /** Or a chart repository (https, oci://) the chart was pushed to. */
        repository: addonRepository,
    }),
    kaiScheduler: section({
        enabled: z.boolean().default(false),
        repository: addonRepository,
        operator: kaiComponent,
        podgrouper: kaiComponent,
        podgroupcontroller: kaiComponent,
        binder: kaiComponent,
        scheduler: kaiComponent,
        queuecontroller: kaiComponent,
        admission: kaiComponent,
        nodescaleadjuster: kaiComponent,
        numaPlacementExporter: kaiComponent,
    }),
    groveOperator: section({
        enabled: z.boolean().default(false),
        repository: addonRepository,
        /** Grove's `config.network` (e.g. `autoMNNVLEnabled`), passed through. */
        network: z.record(z.string(), z.unknown()).default({}),
    }),
    dynamoOperator: section({
        enabled: z.boolean().default(false),
        repository: addonRepository,
    }),
});

export const computePlaneSchema = z.strictObject({
    /** The cluster's name in ICMS: an RFC 1123 name of at most 32 characters (ICMS answers 412 beyond). */
    clusterName: z
        .string()
        .regex(rfc1123, { message: "must be an RFC 1123 name: lower-case letters, digits, '-' and '.'" })
        .max(32, { message: "ICMS refuses cluster names longer than 32 characters" }),
    /** How to reach the GPU cluster. */
    cluster: section({
        /** The control plane's cluster (its kubeconfig and context). */
        sameAsControlPlane: z.boolean().default(false),
        /** A context of $KUBECONFIG/~/.kube/config, or of the cluster's entry in computePlaneKubeconfigs. */
        context: gr.grammarString(gr.singleLine).min(1).optional(),
        /** An EKS cluster by name: its OIDC issuer registers it, no API-server discovery needed. */
        eks: eksClusterSchema.optional(),
        /** Stable provider identity; defaults to the cluster name. */
        clusterIdentifier: gr.grammarString(gr.singleLine).min(1).optional(),
        /** Skip Helm's and the DaemonSet's waits (clusters with no nodes). */
        skipAwait: z.boolean().default(false),
    }),
    /** ICMS's region of the cluster (lower-cased, as ICMS does). */
    region: z
        .string()
        .regex(/^[a-z0-9-]+$/i, { message: "must be a region name such as us-west-1" })
        .transform((r) => r.toLowerCase())
        .default("us-west-1"),
    ncaId: gr.grammarString(gr.singleLine).min(1).default("nvcf-default"),
    cloudProvider: z.enum(["ON-PREM", "DGX-CLOUD", "AWS", "OCI", "AZURE", "GDN", "GFN", "GCP", "NCP"]).default("ON-PREM"),
    /** The control-plane endpoints as the GPU cluster's pods reach them (`global.nvcaOperator.selfManaged`). */
    selfManaged: section({
        icmsServiceURL: url(/^https?$/),
        icmsServiceHostHeaderOverride: gr.grammarString(gr.hostHeader).optional(),
        revalServiceURL: url(/^https?$/),
        revalServiceHostHeaderOverride: gr.grammarString(gr.hostHeader).optional(),
        natsURL: url(/^(nats|tls|ws|wss)$/),
        // A TLS server name for tls/wss, checked as a host name all the same.
        natsHostOverride: gr.grammarString(gr.hostHeader).optional(),
    }),
    /** The control-plane endpoints as this program reaches them, for the registration. */
    registration: section({
        icmsURL: url(/^https?$/),
        icmsHostHeader: gr.grammarString(gr.hostHeader).optional(),
        apiKeysURL: url(/^https?$/),
        apiKeysHostHeader: gr.grammarString(gr.hostHeader).optional(),
        timeoutSeconds: z.number().int().min(1).max(600).default(30),
        retries: z.number().int().min(0).max(10).default(3),
    }),
    /** Image registry override for mirrors; defaults to the control plane's global.image. */
    image: section({ registry: gr.grammarString(gr.registryHost).optional(), repository: gr.grammarString(gr.repositoryPath).optional() }),
    /** Chart source override; defaults to the control plane's global.helm.sources. */
    helmSources: section({
        registry: gr.grammarString(gr.registryHost).optional(),
        repository: gr.grammarString(gr.repositoryPath).optional(),
        url: url(/^https?$/),
        path: gr.grammarString(gr.filePath).optional(),
    }),
    imagePullSecrets: z.array(z.strictObject({ name: gr.grammarString(gr.dnsSubdomain) })).default([]),
    nvcaOperator: section({
        // Unset: the stack's bundle release's (components/bundle/releases/).
        chartVersion: gr.grammarString(gr.chartVersion).optional(),
        imageTag: gr.grammarString(gr.imageTag).optional(),
        nvcaVersion: gr.grammarString(gr.imageTag).optional(),
        otelCollector: section({
            enabled: z.boolean().optional(),
            imageTag: gr.grammarString(gr.imageTag).optional(),
            imageRepository: gr.grammarString(gr.imageName).optional(),
        }),
        agent: section({
            tolerations: z.array(toleration).default([]),
            workload: section({ tolerations: z.array(toleration).default([]) }),
        }),
    }),
    observability: section({
        profile: z
            .enum(["disabled", "control", "compute", "all"], {
                message: "observability.profile must be disabled, control, compute, or all",
            })
            .default("compute"),
    }),
    nodeSelector: section({
        enabled: z.boolean().default(false),
        key: gr.grammarString(gr.qualifiedName).default("nvcf.nvidia.com/workload"),
        value: gr.grammarString(gr.labelValue).default("worker"),
    }),
    tolerations: z.array(toleration).default([]),
    /** Extra NVCA feature gates; `-Gate` turns a default off. */
    featureGates: z
        .array(
            z
                .string()
                .regex(
                    /^-?[A-Za-z][A-Za-z0-9]*$/,
                    "must be an NVCA feature gate: a letter, then letters and digits, with - before it to turn it off",
                ),
        )
        .default([]),
    /** Whether the KAI scheduler runs on this cluster (installed outside this program). */
    kaiSchedulerInstalled: z.boolean().default(false),
    networkPolicy: z.record(z.string(), z.unknown()).optional(),
    agentConfig: section({ mergeConfig: z.record(z.string(), z.unknown()).optional() }),
    smbCsiDriver: section({
        version: gr.grammarString(gr.chartVersion).default("v1.17.0"),
        /** An https chart repository, an `oci://` mirror of the chart, or a local chart directory. */
        source: z
            .string()
            .regex(/^(https?:\/\/|oci:\/\/|\/|\.\.?\/)/, { message: "must be an https URL, an oci:// reference or a path" })
            .default("https://raw.githubusercontent.com/kubernetes-csi/csi-driver-smb/master/charts"),
    }),
    inotifyTuner: section({
        initImage: gr.grammarString(gr.imageReference).default("busybox:1.36"),
        pauseImage: gr.grammarString(gr.imageReference).default("registry.k8s.io/pause:3.9"),
    }),
    /** What destroy does after the NVCA operator's uninstall (the cluster document's steps 4 and 5). */
    teardown: section({
        /** How long destroy waits for NVCA's namespaces to go before it reports what holds them. */
        timeoutSeconds: z.number().int().min(1).max(3600).default(300),
        /**
         * Clear the finalizers of NVCA's objects and namespaces still Terminating at the timeout,
         * as NVIDIA's force-cleanup script does. Off by default: it can orphan cloud resources.
         */
        forceFinalizers: z.boolean().default(false),
    }),
    /** The bundle's optional GPU scheduling add-ons, installed by this stack. */
    addons: addonsSchema,
    /** Whether the Grove operator runs on this cluster (installed outside this program). */
    groveOperatorInstalled: z.boolean().default(false),
    /** Whether the Dynamo operator runs on this cluster (installed outside this program). */
    dynamoOperatorInstalled: z.boolean().default(false),
});

export type ComputePlaneConfig = z.infer<typeof computePlaneSchema>;

export const computePlanesSchema = z
    .array(computePlaneSchema)
    .default([])
    .superRefine((planes, ctx) => {
        const seen = new Map<string, number>();
        planes.forEach((plane, i) => {
            const first = seen.get(plane.clusterName);
            if (first !== undefined) {
                ctx.addIssue({
                    code: "custom",
                    path: [i, "clusterName"],
                    input: plane.clusterName,
                    message: `the cluster name is already used by computePlanes[${first}]`,
                    params: { allowed: "a name unique among the compute planes" },
                });
            } else {
                seen.set(plane.clusterName, i);
            }
            const reserved = plane.imagePullSecrets.filter((s) => (RESERVED_PULL_SECRET_NAMES as readonly string[]).includes(s.name));
            for (const s of reserved) {
                ctx.addIssue({
                    code: "custom",
                    path: [i, "imagePullSecrets"],
                    input: s.name,
                    message: "the NVCA mirror reserves this pull secret name",
                    params: { allowed: `a name other than ${RESERVED_PULL_SECRET_NAMES.join(", ")}` },
                });
            }
        });
    });
