/**
 * What the fleet takes from the Pulumi Kubernetes Operator and the images it runs, each fact
 * with the file it was read from, so a bump of the operator is one place to re-read
 * (docs/fleets.md, Where the facts come from). pulumi/pulumi-kubernetes-operator is read at tag v2.9.0.
 */

/** The operator's Helm chart and the release the fleet installs it as. */
export const OPERATOR_CHART = {
    /** README.md ("Using Helm") and deploy/helm/pulumi-operator/README.md: the published OCI chart. */
    chart: "oci://ghcr.io/pulumi/helm-charts/pulumi-kubernetes-operator",
    /** deploy/helm/pulumi-operator/Chart.yaml `version`. */
    version: "2.9.0",
    /** The release name and namespace of the README's `helm install -n pulumi-kubernetes-operator pulumi-kubernetes-operator`. */
    releaseName: "pulumi-kubernetes-operator",
    namespace: "pulumi-kubernetes-operator",
    /**
     * deploy/helm/pulumi-operator/values.yaml `image.registry` and `image.repository`, and
     * `image.tag` empty meaning Chart.yaml `appVersion`: the chart's own defaults, set explicitly
     * so a preview shows the image that runs.
     */
    image: { registry: "docker.io", repository: "pulumi/pulumi-kubernetes-operator", tag: "v2.9.0" },
} as const;

/** The Stack custom resource (operator/api/pulumi/v1/stack_types.go, deploy/crds/pulumi.com_stacks.yaml). */
export const STACK_RESOURCE = { apiVersion: "pulumi.com/v1", kind: "Stack" } as const;

/**
 * The CRD's `x-kubernetes-validations` rule `size(self.metadata.name) <= 42` ("Stack name must be
 * no more than 42 characters in length."; the +kubebuilder:validation:XValidation marker on
 * Stack in operator/api/pulumi/v1/stack_types.go; CHANGELOG 2.3.0, #899).
 */
export const STACK_NAME_MAX = 42;

/**
 * The ClusterRole every workspace's ServiceAccount needs (docs/migration.md, "Service Account"),
 * and the binding's name as the agent's own error message writes it: `<namespace>:<name>:system:auth-delegator`
 * (agent/pkg/server/auth.go, ServiceAccountPermissionsErrorMessage).
 */
export const AUTH_DELEGATOR = "system:auth-delegator";

/**
 * `resyncFrequencySeconds`: "The minimum value is 60 seconds; values below 60 (including 0) are
 * treated as 60." (operator/api/pulumi/shared/stack_types.go, StackSpec.ResyncFrequencySeconds).
 */
export const MIN_RESYNC_SECONDS = 60;

/**
 * The workspace image: the operator's default for the restricted security profile is
 * `pulumi/pulumi:latest-nonroot` (operator/internal/webhook/auto/v1alpha1/workspace_webhook.go), a
 * tag that moves. The fleet pins the same image at the Pulumi CLI this repository pins
 * (scripts/e2e/build-tools.sh, PULUMI_VERSION 3.276.0); image tags follow the CLI's
 * (pulumi/pulumi-docker-containers README.md), and its docker/pulumi/Dockerfile at tag 3.259.0
 * installs Node.js 22, 24 and 26 (26 the default) in that image and its nonroot variant.
 */
export const DEFAULT_WORKSPACE_IMAGE = "pulumi/pulumi:3.276.0-nonroot";

/**
 * The workspace pod's requests: a full-stack `pulumi up` peaked at 1128 MiB over its process tree
 * and used about one core, and a workspace held 429 MiB after an update, the provider plugins
 * aside (docs/fleets.md, Workspace size). The operator's own defaults,
 * 64Mi and 100m (workspace_webhook.go), are for small programs; its agent also takes the memory
 * request as its memory limit (AGENT_MEMLIMIT, operator/internal/controller/auto/workspace_controller.go).
 */
export const DEFAULT_WORKSPACE_REQUESTS = { cpu: "1", memory: "2Gi", ephemeralStorage: "4Gi" } as const;

/**
 * Environment variables the operator sets itself: `PULUMI_BACKEND_URL` from `spec.backend`
 * (stack_controller.go, setupWorkspace). `PULUMI_CONFIG_PASSPHRASE` has its own setting
 * (`secrets.passphrase`), so it is set in one place only.
 */
export const RESERVED_ENV = ["PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE"] as const;
