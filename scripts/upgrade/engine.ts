/**
 * The Pulumi engine as the upgrade drives it: Pulumi's Automation API on the program's directory,
 * so the stack, its backend and its secrets provider are the ones the `pulumi` CLI uses
 * (`pulumi login`, PULUMI_CONFIG_PASSPHRASE, ...). An interface, so the runner's tests give it a fake.
 */
import type { EngineEvent, Stack } from "@pulumi/pulumi/automation";
import type { PlannedStep } from "./stages";
import { describeStep } from "./stages";
import { messageOf } from "../../lib/text/message-of";

export interface Engine {
    /** The changes a preview shows (targeted when `targets` is given); reads and unchanged resources left out. */
    preview(targets?: readonly string[]): Promise<PlannedStep[]>;
    /**
     * A targeted update; `say` gets a line as each resource starts and ends, and each line the
     * program and its providers print (the OpenBao rollout's, member by member). Throws with the engine's errors.
     */
    up(targets: readonly string[], say: (line: string) => void): Promise<void>;
    /** A config value of the project, decrypted when it is a secret; undefined when unset. Never printed. */
    config(key: string): Promise<string | undefined>;
}

const HELM_RELEASE = "kubernetes:helm.sh/v3:Release";
const NO_CHANGE = new Set(["same", "read", "refresh", "discard"]);

/** A preview's or update's step event, as a planned change (undefined for no change). */
export function stepOf(event: EngineEvent): PlannedStep | undefined {
    const m = event.resourcePreEvent?.metadata;
    if (!m || NO_CHANGE.has(m.op)) return undefined;
    const isRelease = m.type === HELM_RELEASE;
    const release = isRelease ? ((m.new?.inputs?.name ?? m.old?.inputs?.name) as string | undefined) : undefined;
    return {
        urn: m.urn,
        type: m.type,
        op: m.op,
        ...(release ? { release } : {}),
        ...(isRelease && typeof m.old?.inputs?.version === "string" ? { oldVersion: m.old.inputs.version } : {}),
        ...(isRelease && typeof m.new?.inputs?.version === "string" ? { newVersion: m.new.inputs.version } : {}),
    };
}

/** The engine's own error lines out of a failed command's output (its `error:` lines), else its last lines. */
export function engineErrors(error: unknown): string {
    const text = messageOf(error);
    const lines = text.split("\n").map((l) => l.trim());
    const errors = lines.filter((l) => /^error:/.test(l) && !/^error: update failed$/.test(l));
    return (errors.length > 0 ? errors : lines.filter((l) => l).slice(-6)).join("\n");
}

export async function automationEngine(root: string, stackName: string, project: string): Promise<Engine> {
    // Loaded on use: the Automation API is only needed once the command runs.
    const { LocalWorkspace } = await import("@pulumi/pulumi/automation");
    const stack: Stack = await LocalWorkspace.selectStack({ stackName, workDir: root });
    return {
        async preview(targets) {
            const steps: PlannedStep[] = [];
            await stack.preview({
                ...(targets ? { target: [...targets] } : {}),
                onEvent: (e) => {
                    const step = stepOf(e);
                    if (step) steps.push(step);
                },
            });
            return steps;
        },
        async up(targets, say) {
            const started = new Map<string, number>();
            await stack.up({
                target: [...targets],
                onEvent: (e) => {
                    const step = stepOf(e);
                    if (step) {
                        started.set(step.urn, Date.now());
                        say(`${describeStep(step)} ...`);
                    }
                    const said = e.diagnosticEvent;
                    // A dynamic provider's stderr arrives as info#err (the rollout's member-by-member lines);
                    // warnings stay out: the stage is the upgrade the restart warnings point to.
                    if (said && !said.ephemeral && (said.severity === "info" || said.severity === "info#err") && said.message.trim()) {
                        for (const line of said.message.trim().split("\n")) say(`  ${line}`);
                    }
                    const done = e.resOutputsEvent?.metadata;
                    if (done && started.has(done.urn)) {
                        const s = stepOf({ ...e, resourcePreEvent: { metadata: done } } as EngineEvent);
                        if (s) say(`${describeStep(s)}: done in ${Math.round((Date.now() - started.get(done.urn)!) / 1000)} s`);
                    }
                },
            });
        },
        async config(key) {
            try {
                return (await stack.getConfig(`${project}:${key}`)).value;
            } catch {
                return undefined;
            }
        },
    };
}
