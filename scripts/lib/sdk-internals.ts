/**
 * The one place the mock engine reaches past @pulumi/pulumi's public API, and the one place it
 * changes process-wide state. Why: `pulumi.runtime.setMocks` answers each registration but
 * keeps no record of what the program asked for (parent, provider reference, dependencies,
 * retainOnDelete, deleteBeforeReplace, inputs with secret envelopes), and the render and the
 * tests need exactly that. So the engine wraps the mock monitor's registerResource,
 * readResource and registerResourceOutputs, and reads the requests' protobuf getters; it also
 * needs the SDK's count of RPCs in flight (`waitForRPCs`, marked @internal, so not in the
 * typings) to know when a run is over.
 *
 * It also memoizes the dynamic providers' serialization on disk (closure-cache.ts says why), by
 * replacing `serializeFunction` of the SDK's runtime/closure/serializeClosure module, which the
 * SDK's dynamic resources look up on that module at each call.
 *
 * And during a run it turns off what the SDK keeps for a deployment's diagnostics only: stack
 * traces, the resources' source positions (Resource's static `stackTrace`, which the constructor
 * looks up on the class at each call) and the promise leak tracking (`debuggablePromise` of
 * runtime/debuggable, which the runtime's modules look up on that module at each call).
 *
 * test/sdk-internals.test.ts checks each of these by name, so an SDK upgrade that removes or
 * renames one fails there, saying which, rather than as an empty or wrong render.
 */
import * as pulumi from "@pulumi/pulumi";
import * as settings from "@pulumi/pulumi/runtime/settings";
import { cachedText, providerKey, storeText, type SerializedText } from "./closure-cache";
import type {
    ReadResourceRequest,
    ReadResourceResponse,
    RegisterResourceOutputsRequest,
    RegisterResourceRequest,
    RegisterResourceResponse,
} from "@pulumi/pulumi/proto/resource_pb";

export type { ReadResourceRequest, RegisterResourceRequest };

type Callback<R> = (err: unknown, res: R | undefined) => void;

/** The mock monitor's methods the engine wraps (the SDK's MockMonitor, as `getMonitor` returns it). */
interface Monitor {
    registerResource(req: RegisterResourceRequest, cb: Callback<RegisterResourceResponse>): unknown;
    readResource(req: ReadResourceRequest, cb: Callback<ReadResourceResponse>): unknown;
    registerResourceOutputs(req: RegisterResourceOutputsRequest, cb: Callback<unknown>): unknown;
}

const MONITOR_METHODS = ["registerResource", "readResource", "registerResourceOutputs"] as const;

/** The request getters the engine reads (see RecordedResource in mock-engine.ts). */
export const REGISTER_GETTERS = [
    "getType",
    "getName",
    "getParent",
    "getProvider",
    "getCustom",
    "getRetainondelete",
    "getDeletebeforereplace",
    "getDependenciesList",
    "getObject",
] as const;
export const READ_GETTERS = ["getType", "getName", "getId", "getParent", "getProvider", "getDependenciesList", "getProperties"] as const;

/**
 * `holder`, which has the function `name` the engine calls, wraps or replaces, or an error naming
 * what an SDK upgrade took away and what the engine does with it.
 */
function sdkFunction<K extends string, F>(holder: unknown, name: K, where: string, use: string): Record<K, F> {
    if (typeof (holder as Partial<Record<K, unknown>>)[name] !== "function") {
        throw new Error(`${where} no longer has ${name}; the mock engine ${use} (scripts/lib/sdk-internals.ts)`);
    }
    return holder as Record<K, F>;
}

type SettingsInternals = { getMonitor(): unknown; waitForRPCs(): Promise<void> };

/** The runtime/settings functions, or an error naming the one an SDK upgrade took away. */
function settingsInternals(): SettingsInternals {
    for (const name of ["getMonitor", "waitForRPCs"]) sdkFunction(settings, name, "@pulumi/pulumi/runtime/settings", "needs it");
    return settings as unknown as SettingsInternals;
}

/** The mock monitor `setMocks` installed, or an error naming what it lacks. */
function mockMonitor(): Monitor {
    const monitor = settingsInternals().getMonitor() as Partial<Monitor> | undefined;
    if (!monitor) throw new Error("runtime/settings getMonitor() returned no monitor after setMocks (scripts/lib/sdk-internals.ts)");
    for (const name of MONITOR_METHODS) sdkFunction(monitor, name, "the SDK's mock monitor", "wraps it");
    return monitor as Monitor;
}

export interface MonitorHooks {
    /** A registration the monitor answered, with the URN it gave ("" when it gave none). */
    registered(req: RegisterResourceRequest, urn: string): void;
    /** A read of an existing resource (`get`, or an `id` option) the monitor answered. */
    read(req: ReadResourceRequest, urn: string): void;
}

export interface MonitorWatch {
    /**
     * Resolves once no RPC is in flight: the SDK's own count first, then, since registrations
     * can start from applies, until none of the wrapped calls has been pending for a while.
     * Components report their outputs late (once they resolve); those are waited for too, so
     * none reaches the next run's monitor.
     */
    settled(): Promise<void>;
}

/** Wraps the current mock monitor (call after `pulumi.runtime.setMocks`) to report each answered call. */
export function watchMonitor(hooks: MonitorHooks): MonitorWatch {
    const monitor = mockMonitor();
    let outstanding = 0;
    const wrap =
        <Req, Res>(call: (req: Req, cb: Callback<Res>) => unknown, done: (req: Req, res: Res | undefined) => void) =>
        (req: Req, cb: Callback<Res>) => {
            outstanding++;
            call(req, (err, res) => {
                done(req, res);
                outstanding--;
                cb(err, res);
            });
        };
    const urnOf = (res: { getUrn?: () => string } | undefined) => res?.getUrn?.() ?? "";
    monitor.registerResource = wrap(monitor.registerResource.bind(monitor), (req, res) => hooks.registered(req, urnOf(res)));
    monitor.readResource = wrap(monitor.readResource.bind(monitor), (req, res) => hooks.read(req, urnOf(res)));
    monitor.registerResourceOutputs = wrap(monitor.registerResourceOutputs.bind(monitor), () => undefined);
    const { waitForRPCs } = settingsInternals();
    return {
        async settled() {
            await waitForRPCs();
            let idleTicks = 0;
            while (idleTicks < 5) {
                await new Promise((r) => setTimeout(r, 2));
                idleTicks = outstanding === 0 ? idleTicks + 1 : 0;
            }
        },
    };
}

type StackTrace = (skip: number) => unknown[];
type DebuggablePromise = <T>(promise: Promise<T>, context: unknown) => Promise<T>;

/**
 * Runs `work` (one program run) without what the SDK keeps only for a deployment's diagnostics,
 * then puts it all back (also on error). Each costs the mock engine, which shows no diagnostics,
 * per promise or per resource, and a run makes thousands:
 * - stack traces: the SDK captures one for every output promise; the limit goes to 0;
 * - source positions: for each resource it captures another, with the limit set to infinity for
 *   that one; Resource's static `stackTrace` returns none instead (a seventh of a run's CPU,
 *   sampled);
 * - promise leak tracking: `debuggablePromise` tags every promise of the runtime, records it in a
 *   set and chains two more to take it out again, for a report at process exit of promises a
 *   deployment left unsettled; a run under the mock engine waits for its RPCs itself and never
 *   exits. Passed through unchanged: about a fifth off a run of the dev stack (`npm run bench`).
 * Process-wide, like the source maps (source-maps.ts): errors created in the meantime, the
 * program's included, carry no stack frames; the engine runs one program at a time.
 */
export async function withoutDiagnostics<T>(work: () => Promise<T>): Promise<T> {
    const resource = sdkFunction<"stackTrace", StackTrace>(
        pulumi.Resource,
        "stackTrace",
        "@pulumi/pulumi's Resource",
        "replaces it during a run",
    );
    const debuggable = sdkFunction<"debuggablePromise", DebuggablePromise>(
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        require("@pulumi/pulumi/runtime/debuggable"),
        "debuggablePromise",
        "@pulumi/pulumi/runtime/debuggable",
        "replaces it during a run",
    );
    const { stackTrace } = resource;
    const { debuggablePromise } = debuggable;
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    resource.stackTrace = () => [];
    debuggable.debuggablePromise = (promise) => promise;
    try {
        return await work();
    } finally {
        Error.stackTraceLimit = limit;
        resource.stackTrace = stackTrace;
        debuggable.debuggablePromise = debuggablePromise;
    }
}

/** The SDK's `serializeFunction` arguments, as runtime/closure/serializeClosure declares them. */
interface SerializeArgs {
    readonly exportName?: string;
    readonly serialize?: unknown;
    readonly isFactoryFunction?: boolean;
    readonly allowSecrets?: boolean;
    readonly logResource?: unknown;
}
type SerializeFunction = (func: () => unknown, args?: SerializeArgs) => Promise<SerializedText>;

/** The entry module (resolved path) of the program being run, while one runs. */
let runningProgram: string | undefined;

/** Installs the caching `serializeFunction` once per process; it passes through outside a run. */
let installed = false;
function installProviderCache(): void {
    if (installed) return;
    installed = true;
    const module = sdkFunction<"serializeFunction", SerializeFunction>(
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        require("@pulumi/pulumi/runtime/closure/serializeClosure"),
        "serializeFunction",
        "@pulumi/pulumi/runtime/closure/serializeClosure",
        "caches through it",
    );
    const serialize = module.serializeFunction;
    module.serializeFunction = async (func, args = {}) => {
        const program = runningProgram;
        // Only the dynamic resources' call: `() => provider`, secrets allowed, nothing custom.
        const plain = !args.serialize && !args.exportName && !args.isFactoryFunction && args.allowSecrets === true;
        const provider = program !== undefined && plain && func.length === 0 ? func() : undefined;
        const key = typeof provider === "object" && provider !== null ? providerKey(program!, provider, func.toString()) : undefined;
        if (key === undefined) return serialize(func, args);
        const text = cachedText(key);
        if (text !== undefined) return { text, containsSecrets: false };
        const fresh = await serialize(func, args);
        storeText(key, fresh);
        return fresh;
    };
}

/**
 * Runs `work` (one program run of the loaded program whose entry module is `entry`) with the
 * dynamic providers' serialization cached. Process-wide, like the settings above; the engine
 * runs one program at a time.
 */
export async function withProviderCache<T>(entry: string, work: () => Promise<T>): Promise<T> {
    installProviderCache();
    runningProgram = entry;
    try {
        return await work();
    } finally {
        runningProgram = undefined;
    }
}
