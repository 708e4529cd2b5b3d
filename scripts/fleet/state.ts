import {
    type OperatorStack,
    STACK_CONDITIONS,
    STACK_REASONS,
    STACK_UPDATE_STATES,
    type StackCondition,
} from "../../lib/contracts/pulumi-operator";

/** What `npm run fleet -- status` says of one Stack, from its status alone (pure). */
export interface StackState {
    /** succeeded, failed, running, waiting on <prerequisite>, stalled (<reason>), never run. */
    readonly state: string;
    /** True when the state asks for someone to look (failed, stalled). */
    readonly bad: boolean;
    readonly commit?: string;
    readonly time?: string;
    readonly message?: string;
}

function condition(stack: OperatorStack, type: string): StackCondition | undefined {
    return stack.status?.conditions?.find((c) => c.type === type && c.status === "True");
}

/** The names a PrerequisiteNotSatisfied message quotes (stack_controller.go: `... for "dev": ...`), else the spec's. */
function prerequisiteNames(stack: OperatorStack, message: string | undefined): string {
    const quoted = [...(message ?? "").matchAll(/"([^"]+)"/g)].map((m) => m[1]);
    if (quoted.length > 0) return quoted.join(", ");
    const many = /not satisfied (.+)$/.exec(message ?? "")?.[1];
    if (many) return many;
    return (stack.spec?.prerequisites ?? []).map((p) => p.name).join(", ") || "a prerequisite";
}

/** One line: the first line of a message, at most 160 characters. */
export function oneLine(text: string | undefined): string | undefined {
    if (text === undefined || text.trim() === "") return undefined;
    const first = text.trim().split(/\r?\n/)[0].trim();
    const more = first.length > 160 || text.trim().includes("\n");
    return more ? `${first.slice(0, 160)}…` : first;
}

export function stackState(stack: OperatorStack): StackState {
    const status = stack.status ?? {};
    const last = status.lastUpdate;
    const current = status.currentUpdate;
    const base = {
        ...(current?.commit || last?.lastAttemptedCommit ? { commit: current?.commit || last?.lastAttemptedCommit } : {}),
        ...(last?.lastResyncTime ? { time: last.lastResyncTime } : {}),
    };
    const stalled = condition(stack, STACK_CONDITIONS.stalled);
    if (stalled) {
        return { state: `stalled (${stalled.reason})`, bad: true, ...base, ...opt(oneLine(stalled.message ?? last?.message)) };
    }
    const reconciling = condition(stack, STACK_CONDITIONS.reconciling);
    if (reconciling?.reason === STACK_REASONS.prerequisiteNotSatisfied) {
        return {
            state: `waiting on ${prerequisiteNames(stack, reconciling.message)}`,
            bad: false,
            ...base,
            ...opt(oneLine(reconciling.message)),
        };
    }
    if (current !== undefined || reconciling?.reason === STACK_REASONS.processing) {
        return { state: "running", bad: false, ...base, ...opt(oneLine(last?.message)) };
    }
    if (last?.state === STACK_UPDATE_STATES.failed) {
        const retrying = reconciling?.reason === STACK_REASONS.retryingAfterFailure;
        const preview = reconciling?.reason === STACK_REASONS.previewFailed;
        return {
            state: retrying ? "failed, retrying" : preview ? "failed (preview)" : "failed",
            bad: true,
            ...base,
            ...opt(oneLine(last.message)),
        };
    }
    if (last?.state === STACK_UPDATE_STATES.succeeded) {
        return { state: "succeeded", bad: false, ...base, ...opt(oneLine(last.message)) };
    }
    return { state: "never run", bad: false, ...base, ...opt(oneLine(reconciling?.message)) };
}

function opt(message: string | undefined): { message?: string } {
    return message === undefined ? {} : { message };
}
