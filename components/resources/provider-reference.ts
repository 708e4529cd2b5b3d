import type * as pulumi from "@pulumi/pulumi";
import { codeDigest } from "./code-digest";

/**
 * Every provider a resource's state names, file (under components/providers/) to export. A
 * state keeps the name it was created with and a delete loads the provider by it, so a name here
 * is never removed or renamed: a moved provider leaves a re-export at its old path.
 */
export const PROVIDERS = {
    "bundle-receipt-key": "ReceiptKeyProvider",
    "cluster-checks": "ClusterChecksProvider",
    "cluster-registration": "ClusterRegistrationProvider",
    "nvca-teardown": "NvcaTeardownProvider",
    "openbao-cassandra-password": "CassandraPasswordProvider",
    "openbao-grant-revocation": "GrantRevocationProvider",
    "openbao-jwt-baseline": "JwtBaselineProvider",
    "openbao-kv-credential": "KvCredentialProvider",
    "openbao-mek-rotation": "MekRotationProvider",
    "openbao-nkey-rotation": "NkeyRotationProvider",
    "openbao-rollout": "OpenBaoRolloutProvider",
    "release-drift-correction": "DriftCorrectionProvider",
    "smoke-check": "SmokeCheckProvider",
} as const;

export type ProviderName = keyof typeof PROVIDERS;

/** The engine's provider interface, every method there. */
type HostProvider = Required<pulumi.dynamic.ResourceProvider>;

/**
 * What a dynamic resource hands the engine as its provider: not the provider's code but where it
 * is (a path from the project's root) and the digest of that code. The engine serialises this
 * object into every resource's `__provider` input; serialising the providers themselves, with
 * everything their functions reach, cost most of an evaluation. The engine's provider host loads
 * the code when the resource's first operation runs.
 */
export function providerReference(name: ProviderName): HostProvider {
    const file = `components/providers/${name}.ts`;
    return referenceTo(file, PROVIDERS[name], codeDigest(file));
}

/** The object serialised: it captures its strings and the loader, nothing else. */
function referenceTo(file: string, exportName: string, digest: string): HostProvider {
    // In the state, beside the resource's inputs: which code serves it.
    const source = `${file}#${exportName} sha256:${digest}`;
    const provider = (): HostProvider => loadProvider(source, file, exportName);
    return {
        source,
        configure: (req) => provider().configure(req),
        check: (olds, news) => provider().check(olds, news),
        diff: (id, olds, news) => provider().diff(id, olds, news),
        create: (inputs) => provider().create(inputs),
        read: (id, props) => provider().read(id, props),
        update: (id, olds, news) => provider().update(id, olds, news),
        delete: (id, props) => provider().delete(id, props),
    } as HostProvider;
}

/**
 * The provider `source` names, loaded once per process: the engine's provider host, which runs
 * plain Node in the project's directory. Kept on the global object: a serialised closure's
 * captured variables are made anew on each call, and `configure` must reach the same instance as
 * `create`.
 */
function loadProvider(source: string, file: string, exportName: string): HostProvider {
    const host = globalThis as { nvcfProviders?: Map<string, HostProvider>; nvcfTsx?: unknown };
    const loaded = (host.nvcfProviders ??= new Map());
    const cached = loaded.get(source);
    if (cached) return cached;
    /* eslint-disable @typescript-eslint/no-require-imports -- the host has no module system of ours */
    const path = require("node:path") as typeof import("node:path");
    const fs = require("node:fs") as typeof import("node:fs");
    const at = path.resolve(file);
    if (!fs.existsSync(at))
        throw new Error(
            `the dynamic provider's code ${file} is not in ${process.cwd()}: run pulumi in the checkout of nvcf-self-managed that holds this stack's program`,
        );
    // `--import tsx` is the program's alone: the host needs tsx's hooks to load TypeScript (a
    // Node that strips types itself resolves no extensionless import).
    host.nvcfTsx ??= (require("tsx/cjs/api") as { register(): unknown }).register();
    const Provider = (require(at) as Record<string, unknown>)[exportName];
    /* eslint-enable @typescript-eslint/no-require-imports */
    if (typeof Provider !== "function") throw new Error(`${file} exports no provider ${exportName}`);
    const provider = new (Provider as new () => HostProvider)();
    loaded.set(source, provider);
    return provider;
}
