import type * as pulumi from "@pulumi/pulumi";
import type { SecretKey } from "../../config/model/keys";
import { PROJECT } from "../../config/model/project";
import type { Kube } from "../../lib/kubernetes/client";
import { connect } from "../../lib/kubernetes/connect";
import { canonicalJson } from "../../lib/text/canonical-json";
import { messageOf } from "../../lib/text/message-of";
import type { ClusterReach, KubeSecrets } from "../../lib/cluster-access/reach";

/** What a test puts in place of the running systems; the engine's providers take none of it. */
export interface ProviderOptions {
    /** Replaces the real API server. */
    readonly kube?: Kube;
    /** Replaces the progress lines' writer (stderr, which `pulumi up` shows). */
    readonly say?: (line: string) => void;
    /** Replaces a pause between polls. */
    readonly pollMs?: number;
    /** Replaces a pause between retries. */
    readonly retryDelayMs?: number;
    readonly now?: () => Date;
}

/** What every operation of a provider is handed. */
export interface ProviderContext {
    readonly options: ProviderOptions;
    /**
     * A stack secret the provider declared, as the engine hands it to `configure` in the
     * provider's own process: secrets are read there, never a resource's input. "" counts as unset.
     */
    secret(key: SecretKey): string | undefined;
    /** The kubeconfig secrets, which every provider may read. */
    readonly kubeSecrets: KubeSecrets;
    /** The cluster's API server (the test's fake when one is given). */
    kube(reach: ClusterReach, timeoutSeconds?: number): Promise<Kube>;
    /** One progress line. */
    say(line: string): void;
}

export type DiffResult = pulumi.dynamic.DiffResult;
export type CheckFailure = pulumi.dynamic.CheckFailure;

/**
 * A dynamic resource's behaviour, with only what differs from the others. What the kit does
 * for every one of them:
 * - the declared secrets (and the kubeconfig secrets) are read in `configure`, never inputs;
 * - the diff: any declared input changed (objects by content, the engine's `__provider` aside)
 *   is a change (those of `ignores` aside), one of `replaces` a replacement; `changes` is asked
 *   only when none changed;
 * - a failure names the resource (`describe`) and the operation, unless its message already does;
 * - read keeps the last state (import refused), delete leaves nothing to do, unless given.
 * A create must be safe to run again after it stopped half-way: each step looks before it acts.
 */
export interface ProviderSpec<I extends object, O extends I> {
    /** The resource as errors name it: "cluster registration of gpu-1". */
    readonly describe: (inputs: I) => string;
    /** What errors call an operation, where the resource has its own word for it ("register"). */
    readonly operations?: Partial<Record<"create" | "update" | "read" | "delete", string>>;
    /** What a failure means for the user where its message alone says little; it goes before the message. */
    readonly hint?: (err: unknown) => string;
    /** The stack secrets it reads, beyond the kubeconfig ones. */
    readonly secrets?: readonly SecretKey[];
    /** Runs once the secrets are read: a malformed secret fails here, before any request. */
    readonly configured?: (ctx: ProviderContext) => void;
    /** Failures of the declared inputs, before any diff (an unknown input is checked at up). */
    readonly check?: (news: I, olds: I | undefined) => CheckFailure[];
    /** Inputs whose change is a new resource, the old one deleted first. */
    readonly replaces?: readonly (keyof I & string)[];
    /** Inputs whose change alone is no change: they only shape what a later operation does. */
    readonly ignores?: readonly (keyof I & string)[];
    /** Runs first in every diff, told which declared inputs changed: what the plan says (a warning), never its answer. */
    readonly plan?: (olds: O, news: I, changed: readonly (keyof I)[], ctx: ProviderContext) => void;
    /** No declared input changed: whether the running system still needs an update. */
    readonly changes?: (olds: O, news: I, ctx: ProviderContext) => Promise<boolean | DiffResult>;
    /** A preview with a value still unknown is a change, without asking `changes`. */
    readonly unknownIsChange?: boolean;
    /** The resource's ID, from its inputs or, where the running system assigns it, its outputs. */
    readonly id: (inputs: I, outs: O) => string;
    readonly create: (inputs: I, ctx: ProviderContext) => Promise<O>;
    /** The default runs `create` with the new inputs. */
    readonly update?: (id: string, olds: O, news: I, ctx: ProviderContext) => Promise<O>;
    /** A refresh: the state as it is now, undefined when it is gone. The default keeps the last state. */
    readonly read?: (id: string, props: O, ctx: ProviderContext) => Promise<O | undefined>;
    /** What `pulumi import` of one is told, when it is refused. */
    readonly importRefused?: string;
    readonly delete?: (id: string, props: O, ctx: ProviderContext) => Promise<void>;
}

/** What the engine passes for an input not known yet (a preview before an upstream resource exists). */
export const UNKNOWN_INPUT = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** A provider the kit made: every method is there. */
export type KitProvider<I, O> = Required<pulumi.dynamic.ResourceProvider<I, O>>;

/** A provider class from its spec: `new Provider()` for the resource, `new Provider(options)` in tests. */
export function defineProvider<I extends object, O extends I>(
    spec: ProviderSpec<I, O>,
): new (options?: ProviderOptions) => KitProvider<I, O> {
    return class Provider implements KitProvider<I, O> {
        private ctx: ProviderContext;

        constructor(private readonly options: ProviderOptions = {}) {
            this.ctx = providerContext(options, {});
        }

        async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
            const read = (key: SecretKey) => req.config.get(`${PROJECT}:${key}`) || undefined;
            const values: Partial<Record<SecretKey, string>> = {};
            for (const key of ["kubeconfig", "computePlaneKubeconfigs", ...(spec.secrets ?? [])] as const) values[key] = read(key);
            this.ctx = providerContext(this.options, values);
            spec.configured?.(this.ctx);
        }

        async check(olds: I, news: I): Promise<pulumi.dynamic.CheckResult<I>> {
            // The engine passes {} as the olds of a resource it has not created.
            const previous = olds && Object.keys(olds).length > 0 ? olds : undefined;
            return { inputs: news, failures: spec.check?.(news, previous) ?? [] };
        }

        async diff(_id: string, olds: O, news: I): Promise<pulumi.dynamic.DiffResult> {
            const ignored: readonly (keyof I)[] = spec.ignores ?? [];
            const changed = changedInputs<I>(olds, news).filter((k) => !ignored.includes(k));
            spec.plan?.(olds, news, changed, this.ctx);
            const replaces = (spec.replaces ?? []).filter((k) => canonicalJson(olds[k]) !== canonicalJson(news[k]));
            // A new resource with the same identity is often refused until the old one is gone.
            if (replaces.length > 0) return { changes: true, replaces, deleteBeforeReplace: true };
            if (changed.length > 0) return { changes: true };
            if (!spec.changes) return { changes: false };
            if (spec.unknownIsChange && hasUnknown(news)) return { changes: true };
            const answer = await spec.changes(olds, news, this.ctx);
            return typeof answer === "boolean" ? { changes: answer } : answer;
        }

        async create(inputs: I): Promise<pulumi.dynamic.CreateResult<O>> {
            const outs = await named(spec, inputs, "create", () => spec.create(inputs, this.ctx));
            return { id: spec.id(inputs, outs), outs };
        }

        async update(id: string, olds: O, news: I): Promise<pulumi.dynamic.UpdateResult<O>> {
            const work = spec.update ? () => spec.update!(id, olds, news, this.ctx) : () => spec.create(news, this.ctx);
            return { outs: await named(spec, news, "update", work) };
        }

        async read(id: string, props?: O): Promise<pulumi.dynamic.ReadResult<O>> {
            if (!props) throw new Error(spec.importRefused ?? `importing one is not supported (${id}); declare it instead`);
            if (!spec.read) return { id, props };
            const now = await named(spec, props, "read", () => spec.read!(id, props, this.ctx));
            // Gone: an empty ID tells the engine, so `pulumi refresh` shows it.
            return now ? { id, props: now } : { id: "", props: undefined };
        }

        async delete(id: string, props: O): Promise<void> {
            if (spec.delete) await named(spec, props, "delete", () => spec.delete!(id, props, this.ctx));
        }
    };
}

function providerContext(options: ProviderOptions, secrets: Partial<Record<SecretKey, string>>): ProviderContext {
    const kubeSecrets: KubeSecrets = { kubeconfig: secrets.kubeconfig, computePlaneKubeconfigs: secrets.computePlaneKubeconfigs };
    return {
        options,
        secret: (key) => secrets[key],
        kubeSecrets,
        kube: async (reach, timeoutSeconds = 30) => options.kube ?? connect(reach, kubeSecrets, timeoutSeconds),
        say: options.say ?? ((line) => process.stderr.write(`${line}\n`)),
    };
}

/** Runs one operation; a failure that does not name the resource is told which one and what it was doing. */
async function named<I extends object, O extends I, T>(
    spec: ProviderSpec<I, O>,
    inputs: I,
    operation: "create" | "update" | "read" | "delete",
    work: () => Promise<T>,
): Promise<T> {
    try {
        return await work();
    } catch (err) {
        const what = spec.describe(inputs);
        const message = messageOf(err);
        if (message.includes(what)) throw err;
        const called = spec.operations?.[operation] ?? operation;
        throw new Error(`${what} (${called}) failed: ${spec.hint?.(err) ?? ""}${message}`, { cause: err });
    }
}

/**
 * The declared inputs whose value changed; the engine's own `__provider` input is not one of them.
 * Objects compare by content: the engine hands state back with its keys in another order.
 */
export function changedInputs<T extends object>(olds: Partial<T>, news: T): (keyof T)[] {
    const keys = Object.keys(news).filter((k) => k !== "__provider") as (keyof T)[];
    return keys.filter((k) => canonicalJson(olds[k]) !== canonicalJson(news[k]));
}

/**
 * Whether a declared input is not known yet. The engine's `__provider` input is left out: a state
 * written before providers were referenced holds a provider's whole code, the sentinel's text among it.
 */
export function hasUnknown(news: object): boolean {
    const { __provider: _source, ...declared } = news as { __provider?: string };
    return JSON.stringify(declared).includes(UNKNOWN_INPUT);
}
