// One compliant fixture per resource kind, shaped like what the program declares (control plane)
// or plans to declare (compute plane), and helpers that break exactly one field of a copy.
import { fixtureUrn, urnOf, type FixtureResource } from "./args";

export const RELEASE_TYPE = "kubernetes:helm.sh/v3:Release";
export const DAEMONSET_TYPE = "kubernetes:apps/v1:DaemonSet";
export const DEPLOYMENT_TYPE = "kubernetes:apps/v1:Deployment";
export const NAMESPACE_TYPE = "kubernetes:core/v1:Namespace";
export const SECRET_TYPE = "kubernetes:core/v1:Secret";
export const COMPUTE_PLANE_TYPE = "nvcf:compute-plane:ComputePlane";
export const REGISTRATION_TYPE = "pulumi-nodejs:dynamic/nvcf:ClusterRegistration";
export const REVOCATION_TYPE = "pulumi-nodejs:dynamic/nvcf:OpenBaoGrantRevocation";

/** Two clusters: each Kubernetes provider is one. */
export const CONTROL_CLUSTER = urnOf("pulumi:providers:kubernetes", "control-plane");
export const GPU_CLUSTER = urnOf("pulumi:providers:kubernetes", "gpu-a");
const DYNAMIC_PROVIDER = urnOf("pulumi:providers:pulumi-nodejs", "default");

export const CASSANDRA_PASSWORD = "fixture-cassandra-password-0123456789";
/** base64("$oauthtoken:nvapi-test-key"), the raw docker auth format. */
export const RAW_AUTH = Buffer.from("$oauthtoken:nvapi-test-key").toString("base64");
export const WEBHOOK_URL = "http://api.nvcf.svc.cluster.local:8080/v2/nvcf/webhook/nats-auth";
export const CHECKSUM_KEY = "nvcf.nvidia.com/nats-worker-auth-checksum";

function release(name: string, namespace: string, values: Record<string, unknown>, extra: Record<string, unknown> = {}): FixtureResource {
    return {
        type: RELEASE_TYPE,
        name: `control-plane-${name}`,
        provider: CONTROL_CLUSTER,
        props: {
            name,
            namespace,
            chart: `oci://nvcr.io/nvidia/nvcf/helm-nvcf-${name}`,
            version: "1.0.0",
            values,
            createNamespace: false,
            timeout: 900,
            waitForJobs: true,
            skipAwait: false,
            ...extra,
        },
    };
}

const image = (name: string) => ({ registry: "nvcr.io", repository: `nvidia/nvcf/${name}`, tag: "1.0.0" });

/** A service release with an image, a pull secret and a user annotation. */
export const essRelease = () =>
    release("ess-api", "ess", {
        ess: { image: image("nvcf-ess"), imagePullSecrets: [{ name: "nvcr-pull-secret" }], podAnnotations: { "example.com/team": "nvcf" } },
    });

export const cassandraRelease = () =>
    release("cassandra", "cassandra-system", { cassandra: { serviceRolePassword: CASSANDRA_PASSWORD, replicaCount: 3 } });

export const openbaoRelease = () =>
    release("openbao-server", "vault-system", {
        openbao: {
            migrations: {
                env: [
                    { name: "DEFAULT_CASSANDRA_PASSWORD", value: CASSANDRA_PASSWORD },
                    { name: "NVCF_API_SIDECARS_IMAGE_PULL_SECRET", value: RAW_AUTH },
                    { name: "ADMIN_CLIENT_ID", value: "ncp" },
                ],
                adminIssuerProxy: { enabled: true },
            },
            server: { annotations: { "example.com/owner": "platform" } },
        },
    });

export const apiRelease = () =>
    release("api", "nvcf", {
        api: {
            accountBootstrap: {
                registryCredentials: [
                    { registryHostname: "nvcr.io", secret: { name: "nvcr-containers", value: RAW_AUTH }, artifactTypes: ["CONTAINER"] },
                    {
                        registryHostname: "helm.ngc.nvidia.com",
                        secret: { name: "nvcr-containers", value: RAW_AUTH },
                        artifactTypes: ["HELM"],
                    },
                ],
                image: { ...image("alpine-k8s"), tag: "1.36.1" },
            },
            podAnnotations: { "example.com/team": "nvcf" },
        },
    });

export const natsRelease = () =>
    release("nats", "nats-system", {
        nats: { workerAuth: "token", authCallout: { workerTokenAuth: { webhookUrl: WEBHOOK_URL } }, podAnnotations: {} },
    });

export const natsAuthCalloutRelease = () =>
    release("nats-auth-callout-service", "nats-system", {
        imagePullSecrets: [{ name: "nvcr-pull-secret" }],
        natsAuthCalloutService: { image: { registry: "nvcr.io", repository: "nvidia/nvcf/nvcf-nats-auth-callout-service" } },
        // The chart reads its pod annotations at the top level of its values.
        podAnnotations: { [CHECKSUM_KEY]: "b0b1c787" },
    });

export const adminIssuerProxyRelease = () => release("admin-issuer-proxy", "api-keys", { adminIssuerProxy: {} });

export const certManagerRelease = () => release("cert-manager", "cert-manager", { "cert-manager": {} });

/** A monitoring release whose values carry a full image reference string. */
export const otelCollectorRelease = () =>
    release("otel-collector", "monitoring", {
        image: "ghcr.io/open-telemetry/opentelemetry-collector-releases/opentelemetry-collector-contrib:0.129.1",
    });

export const namespace = (name: string, cluster = CONTROL_CLUSTER): FixtureResource => ({
    type: NAMESPACE_TYPE,
    name: `namespaces-${name}`,
    provider: cluster,
    props: { apiVersion: "v1", kind: "Namespace", metadata: { name } },
});

export const pullSecret = (ns = "nvcf"): FixtureResource => ({
    type: SECRET_TYPE,
    name: `pull-secrets-${ns}`,
    provider: CONTROL_CLUSTER,
    props: {
        apiVersion: "v1",
        kind: "Secret",
        type: "kubernetes.io/dockerconfigjson",
        metadata: { name: "nvcr-pull-secret", namespace: ns },
        stringData: { ".dockerconfigjson": JSON.stringify({ auths: { "nvcr.io": { auth: RAW_AUTH } } }) },
    },
});

export const deployment = (): FixtureResource => ({
    type: DEPLOYMENT_TYPE,
    name: "example-deployment",
    provider: CONTROL_CLUSTER,
    props: {
        metadata: { name: "example", namespace: "nvcf" },
        spec: {
            template: {
                spec: {
                    containers: [{ name: "app", image: "nvcr.io/nvidia/nvcf/example:1.2.3", securityContext: { privileged: false } }],
                },
            },
        },
    },
});

// The compute plane of one GPU cluster, in the shapes the lead plans (issue 5 brief).
export const computePlane = (): FixtureResource => ({ type: COMPUTE_PLANE_TYPE, name: "gpu-a", props: {} });
const computeChild = { parent: urnOf(COMPUTE_PLANE_TYPE, "gpu-a") };

export const registration = (): FixtureResource => ({
    type: REGISTRATION_TYPE,
    name: "gpu-a-registration",
    provider: DYNAMIC_PROVIDER,
    ...computeChild,
    props: { clusterName: "gpu-a" },
});

export const inotifyTuner = (): FixtureResource => ({
    type: DAEMONSET_TYPE,
    name: "gpu-a-inotify-tuner",
    provider: GPU_CLUSTER,
    ...computeChild,
    props: {
        metadata: { name: "node-inotify-tuner", namespace: "kube-system", labels: { "app.kubernetes.io/name": "node-inotify-tuner" } },
        spec: {
            template: {
                spec: {
                    hostPID: true,
                    tolerations: [{ operator: "Exists" }],
                    initContainers: [{ name: "set-sysctl", image: "busybox:1.36", securityContext: { privileged: true } }],
                    containers: [{ name: "pause", image: "registry.k8s.io/pause:3.10" }],
                },
            },
        },
    },
});

function computeRelease(
    name: string,
    namespace: string,
    version: string,
    values: Record<string, unknown>,
    extra: Record<string, unknown> = {},
) {
    const r = release(name, namespace, values, { version, ...extra });
    return { ...r, name: `gpu-a-${name}`, provider: GPU_CLUSTER, ...computeChild };
}

export const smbRelease = () => computeRelease("csi-driver-smb", "kube-system", "v1.17.0", {}, { chart: "csi-driver-smb", timeout: 300 });

export const kaiRelease = () =>
    computeRelease("kai-scheduler", "kai-scheduler", "v0.16.7", {}, { chart: "oci://ghcr.io/kai-scheduler/kai-scheduler/kai-scheduler" });

export const dynamoRelease = () =>
    computeRelease(
        "dynamo-operator",
        "dynamo-system",
        "1.2.1",
        {},
        { chart: "dynamo-platform", repositoryOpts: { repo: "https://helm.ngc.nvidia.com/nvidia/ai-dynamo" } },
    );

export const nvcaOperatorRelease = (): FixtureResource => ({
    ...computeRelease("nvca-operator", "nvca-operator", "1.21.3", {
        clusterName: "gpu-a",
        selfManaged: { featureGateValues: ["KAIScheduler", "BYOObservability"] },
    }),
    dependencies: [fixtureUrn(registration()), fixtureUrn(smbRelease()), fixtureUrn(inotifyTuner())],
});

export const grantRevocation = (): FixtureResource => ({
    type: REVOCATION_TYPE,
    name: "control-plane-admin-issuer-grant-revocation",
    provider: DYNAMIC_PROVIDER,
    props: {},
});

/** Every resource fixture, one per kind, for sweeps over the whole pack. */
export const ALL_FIXTURES: readonly (() => FixtureResource)[] = [
    essRelease,
    cassandraRelease,
    openbaoRelease,
    apiRelease,
    natsRelease,
    natsAuthCalloutRelease,
    adminIssuerProxyRelease,
    certManagerRelease,
    otelCollectorRelease,
    () => namespace("nvcf"),
    pullSecret,
    deployment,
    computePlane,
    registration,
    inotifyTuner,
    smbRelease,
    kaiRelease,
    nvcaOperatorRelease,
    grantRevocation,
];

/** A compliant stack: a control plane on one cluster and a compute plane on another. */
export function compliantStack(): FixtureResource[] {
    return [
        namespace("cert-manager"),
        namespace("nvcf"),
        pullSecret(),
        certManagerRelease(),
        cassandraRelease(),
        openbaoRelease(),
        natsRelease(),
        natsAuthCalloutRelease(),
        apiRelease(),
        essRelease(),
        adminIssuerProxyRelease(),
        otelCollectorRelease(),
        computePlane(),
        registration(),
        inotifyTuner(),
        smbRelease(),
        kaiRelease(),
        nvcaOperatorRelease(),
    ];
}

export const REMOVE = Symbol("remove");

/** A copy of the resource with the prop at `path` set to `value` (or removed). */
export function withProp(resource: FixtureResource, path: readonly (string | number)[], value: unknown): FixtureResource {
    const props = structuredClone(resource.props);
    let current: Record<string | number, unknown> = props;
    for (const step of path.slice(0, -1)) {
        if (typeof current[step] !== "object" || current[step] === null) current[step] = {};
        current = current[step] as Record<string | number, unknown>;
    }
    const last = path[path.length - 1];
    if (value === REMOVE) delete current[last];
    else current[last] = value;
    return { ...resource, props };
}

/** The stack with the resource of that name replaced (or removed when `change` returns undefined). */
export function changeStack(
    stack: readonly FixtureResource[],
    name: string,
    change: (r: FixtureResource) => FixtureResource | undefined,
): FixtureResource[] {
    if (!stack.some((r) => r.name === name)) throw new Error(`no fixture ${name}`);
    return stack.flatMap((r) => (r.name === name ? (change(r) ?? []) : [r]));
}
