/**
 * What `npm run recover` reads and writes of Pulumi's state and of the kubernetes provider's
 * bookkeeping in it: pulumi/pulumi v3.276.0 (sdk/go/common/apitype/core.go,
 * sdk/go/common/resource/sig/sig.go, pkg/backend/diy) and pulumi/pulumi-kubernetes v4.25.0
 * (provider/pkg/provider/provider.go, helm_release.go; the same names through v4.32.0). Every
 * row is in docs/contracts.md.
 */

/**
 * The kubernetes provider every cluster's resources use: the version the e2e suite builds and runs
 * (scripts/e2e/build-tools.sh), so what recover writes into its state is what the suite verified.
 * The npm SDK may be newer; a newer provider is taken when the suite builds and passes it.
 */
export const KUBERNETES_PROVIDER_VERSION = "4.25.0";

/** Keys the kubernetes provider keeps beside an object's outputs. */
export const KUBERNETES_STATE_KEYS = {
    /** The inputs it diffs against (a secret for a Helm release). */
    inputs: "__inputs",
    /** The server-side-apply field manager it created the object with. */
    fieldManager: "__fieldManager",
    initialApiVersion: "__initialApiVersion",
} as const;

/** The field manager names the provider applies with start with this (`pulumi-kubernetes-<random>` server-side). */
export const KUBERNETES_FIELD_MANAGER_PREFIX = "pulumi-kubernetes";

/** The type token of a Helm release in the state. */
export const HELM_RELEASE_TYPE = "kubernetes:helm.sh/v3:Release";

/** Pulumi's marker of a secret value in a serialized checkpoint (`sig.Key`, `sig.Secret`). */
export const SECRET_SIGNATURE = { key: "4dabf18193072939515e22adb298388d", secret: "1b47061264138c4ac30d75fd1eb44270" } as const;

/** `OperationType` of a pending operation. */
export const PENDING_OPERATION_TYPES = ["creating", "updating", "deleting", "reading", "importing"] as const;
