/**
 * What `npm run fleet -- status` reads of a `pulumi.com/v1` Stack, from
 * pulumi/pulumi-kubernetes-operator at tag v2.9.0:
 * operator/api/pulumi/v1/stack_types.go (StackStatus, condition types and reasons),
 * operator/api/pulumi/shared/stack_types.go (StackUpdateState, CurrentStackUpdate, state values),
 * operator/internal/controller/pulumi/stack_controller.go (which reason is set when).
 * Every value has a row in docs/contracts.md.
 */

/** shared/stack_types.go StackUpdateStateMessage: "succeeded" | "failed". */
export const STACK_UPDATE_STATES = { succeeded: "succeeded", failed: "failed" } as const;
export type StackUpdateStateMessage = (typeof STACK_UPDATE_STATES)[keyof typeof STACK_UPDATE_STATES];

/** shared/stack_types.go StackUpdateState (json names). */
export interface StackUpdateState {
    readonly generation?: number;
    readonly reconcileRequest?: string;
    readonly name?: string;
    readonly type?: string;
    readonly state?: StackUpdateStateMessage;
    readonly message?: string;
    readonly lastAttemptedCommit?: string;
    readonly lastSuccessfulCommit?: string;
    readonly permalink?: string;
    readonly lastResyncTime?: string;
    readonly failures?: number;
}

/** shared/stack_types.go CurrentStackUpdate: set while an update runs. */
export interface CurrentStackUpdate {
    readonly generation?: number;
    readonly reconcileRequest?: string;
    readonly name?: string;
    readonly commit?: string;
}

/** metav1.Condition, as the operator sets it (v1/stack_types.go Mark*Condition). */
export interface StackCondition {
    readonly type: string;
    readonly status: "True" | "False" | "Unknown";
    readonly reason: string;
    readonly message?: string;
    readonly lastTransitionTime?: string;
}

/** v1/stack_types.go StackStatus (json names). */
export interface StackStatus {
    readonly outputs?: Record<string, unknown>;
    readonly lastUpdate?: StackUpdateState;
    readonly observedGeneration?: number;
    readonly observedReconcileRequest?: string;
    readonly conditions?: readonly StackCondition[];
    readonly currentUpdate?: CurrentStackUpdate;
}

export interface OperatorStack {
    readonly apiVersion?: string;
    readonly kind?: string;
    readonly metadata: { readonly name: string; readonly namespace?: string; readonly generation?: number };
    readonly spec?: { readonly stack?: string; readonly backend?: string; readonly prerequisites?: readonly { name: string }[] };
    readonly status?: StackStatus;
}

/** v1/stack_types.go: the condition types of the "ready protocol". */
export const STACK_CONDITIONS = { ready: "Ready", stalled: "Stalled", reconciling: "Reconciling" } as const;

/**
 * v1/stack_types.go: the condition reasons the command names a state after; any other reason (a
 * Stalled one: SpecInvalid, SourceUnavailable, UpdateFailed, ...) is printed as it is.
 */
export const STACK_REASONS = {
    processing: "StackProcessing",
    retryingAfterFailure: "RetryingAfterFailure",
    previewFailed: "PreviewFailed",
    /** stack_controller.go sets it with the prerequisite's error (`prerequisite not satisfied for "<name>": ...`). */
    prerequisiteNotSatisfied: "PrerequisiteNotSatisfied",
} as const;

/** The Stack resource: group pulumi.com, version v1, plural stacks. */
export const STACK_API = { group: "pulumi.com", version: "v1", plural: "stacks" } as const;
