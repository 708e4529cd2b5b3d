/**
 * How Helm 3 records a release with its default `secret` storage driver, as helm/helm v3.18.6
 * defines it (the Helm the kubernetes provider embeds): pkg/storage/driver/secrets.go,
 * pkg/storage/driver/util.go, pkg/release/status.go. Every row is in docs/contracts.md.
 */

/** One Secret per revision: `sh.helm.release.v1.<name>.v<revision>`, labelled by owner, name, status and version. */
export const HELM_SECRET = {
    namePrefix: "sh.helm.release.v1.",
    type: "helm.sh/release.v1",
    /** The label every release Secret carries (`owner=helm`). */
    selector: "owner=helm",
} as const;

/** `release.Status` values. */
export const HELM_RELEASE_STATUS = [
    "unknown",
    "deployed",
    "uninstalled",
    "superseded",
    "failed",
    "uninstalling",
    "pending-install",
    "pending-upgrade",
    "pending-rollback",
] as const;

export type HelmReleaseStatus = (typeof HELM_RELEASE_STATUS)[number];

/** The description Helm gives the revision a rollback writes (`pkg/action/rollback.go`): `Rollback to <revision>`. */
export const HELM_ROLLBACK_DESCRIPTION = "Rollback to ";

/**
 * The field manager Helm writes the release's objects as: `filepath.Base(os.Args[0])` unless set
 * (`pkg/kube/client.go` getManagedFieldsManager), and the kubernetes provider, which embeds Helm,
 * sets none: its binary's name.
 */
export const HELM_FIELD_MANAGER = "pulumi-resource-kubernetes";

/** What Helm adds to every object it installs, beyond the chart's manifest (`pkg/action/validate.go` setMetadataVisitor). */
export const HELM_OWNERSHIP = {
    managedByLabel: "app.kubernetes.io/managed-by",
    managedBy: "Helm",
    releaseNameAnnotation: "meta.helm.sh/release-name",
    releaseNamespaceAnnotation: "meta.helm.sh/release-namespace",
} as const;

/** A hook's events and delete policies (`pkg/release/hook.go`), as `pkg/action/hooks.go` execHook runs them. */
export const HELM_HOOK = {
    /** The event `helm test` runs (`helm.sh/hook: test`). */
    testEvent: "test",
    /** The policy Helm applies to a hook that names none: delete the old object before creating it again. */
    beforeHookCreation: "before-hook-creation",
    hookSucceeded: "hook-succeeded",
    hookFailed: "hook-failed",
} as const;
