/**
 * The resource monitor of a mock-engine run: the SDK's own mock monitor (the one
 * `pulumi.runtime.setMocks` installs), extended to keep what the program asked the engine for.
 * `setMocks` answers each registration but keeps no record of its parent, provider reference,
 * dependencies, retainOnDelete, deleteBeforeReplace or secret envelopes, and the render and the
 * tests need exactly that; a monitor receives them all in the registration request.
 *
 * Only public APIs: the monitor is installed with `pulumi.runtime.setMockOptions`, the program
 * runs in `pulumi.runtime.runInPulumiStack` as the Node.js language host runs it (which also asks
 * the monitor which features it supports, as `setMocks` would have set them), and a run ends
 * with `pulumi.runtime.disconnect`, which waits for the RPCs in flight.
 */
import * as pulumi from "@pulumi/pulumi";
import type {
    ReadResourceRequest,
    ReadResourceResponse,
    RegisterResourceRequest,
    RegisterResourceResponse,
} from "@pulumi/pulumi/proto/resource_pb";
import { MockMonitor } from "@pulumi/pulumi/runtime/mocks";

export type { ReadResourceRequest, RegisterResourceRequest };

type Callback<R> = (err: unknown, res: R | undefined) => void;

export interface MonitorHooks {
    /** A registration the monitor answered, with the URN it gave; the root stack's parent reads "". */
    registered(req: RegisterResourceRequest, urn: string): void;
    /** A read of an existing resource (`get`, or an `id` option) the monitor answered. */
    read(req: ReadResourceRequest, urn: string): void;
}

const ROOT_STACK_TYPE = "pulumi:pulumi:Stack";

/** The SDK's mock monitor, reporting each answered registration and read to `hooks`. */
class RecordingMonitor extends MockMonitor {
    /** Calls answered but not yet handed back to the SDK. */
    outstanding = 0;
    private rootStack = "";

    constructor(
        mocks: pulumi.runtime.Mocks,
        private readonly hooks: MonitorHooks,
    ) {
        super(mocks);
    }

    override async registerResource(req: RegisterResourceRequest, cb: Callback<RegisterResourceResponse>): Promise<void> {
        if (req.getType() === ROOT_STACK_TYPE && req.getParent() === "") {
            return this.track(super.registerResource.bind(this), req, cb, (res) => (this.rootStack = res?.getUrn() ?? ""));
        }
        // The engine leaves the root stack out of its children's URNs and of the render's parents.
        if (this.rootStack !== "" && req.getParent() === this.rootStack) req.setParent("");
        return this.track(super.registerResource.bind(this), req, cb, (res) => this.hooks.registered(req, res?.getUrn() ?? ""));
    }

    override async readResource(req: ReadResourceRequest, cb: Callback<ReadResourceResponse>): Promise<void> {
        if (this.rootStack !== "" && req.getParent() === this.rootStack) req.setParent("");
        return this.track(super.readResource.bind(this), req, cb, (res) => this.hooks.read(req, res?.getUrn() ?? ""));
    }

    override registerResourceOutputs(req: unknown, cb: Callback<unknown>): void {
        // Components report their outputs late (once they resolve): waited for too, so none reaches the next run's monitor.
        this.outstanding++;
        super.registerResourceOutputs(req, (err, res) => {
            this.outstanding--;
            cb(err, res);
        });
    }

    private async track<Req, Res>(
        call: (req: Req, cb: Callback<Res>) => Promise<void>,
        req: Req,
        cb: Callback<Res>,
        answered: (res: Res | undefined) => void,
    ): Promise<void> {
        this.outstanding++;
        await call(req, (err, res) => {
            if (!err) answered(res);
            this.outstanding--;
            cb(err, res);
        });
    }
}

export interface MockRun {
    readonly project: string;
    readonly stack: string;
    /** Pulumi's organization name for the stack (what the diy backends call every stack's). */
    readonly organization: string;
    readonly mocks: pulumi.runtime.Mocks;
    readonly hooks: MonitorHooks;
}

/**
 * Runs `main` (a program's exported function) as the language host would, against a fresh
 * recording monitor, and resolves with its stack outputs once no RPC is in flight. Throws what
 * the program throws, after its RPCs settle.
 */
export async function runWithMonitor(run: MockRun, main: () => unknown): Promise<Record<string, unknown>> {
    const monitor = new RecordingMonitor(run.mocks, run.hooks);
    pulumi.runtime.setMockOptions(monitor, run.project, run.stack, false, run.organization);
    let error: unknown;
    // The program's error is kept, not thrown through the stack: the SDK's stack resource would
    // reject promises of its own that nobody awaits (the language host ends the process there).
    const outputs = await pulumi.runtime.runInPulumiStack(async () => {
        try {
            return await main();
        } catch (e) {
            error = e;
            return undefined;
        }
    });
    await settled(monitor);
    if (error !== undefined) throw error;
    return outputs ?? {};
}

/**
 * Until nothing is in flight: registrations can start from applies after the SDK's own queue
 * drained, so the monitor's count must stay at zero for a few turns before the SDK is told the
 * run is over (`disconnect` waits for its queue again).
 */
async function settled(monitor: RecordingMonitor): Promise<void> {
    for (let idleTicks = 0; idleTicks < 5;) {
        await new Promise((r) => setTimeout(r, 2));
        idleTicks = monitor.outstanding === 0 ? idleTicks + 1 : 0;
    }
    await pulumi.runtime.disconnect();
}
