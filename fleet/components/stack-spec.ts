import type { SecretRef } from "../settings/secret-ref";
import type { EnvironmentSettings } from "../settings/schema";

/**
 * One environment's settings as the `spec` of a pulumi.com/v1 Stack, field for field as
 * shared.StackSpec (operator/api/pulumi/shared/stack_types.go, v2.9.0) names them. Pure data, so
 * the tests read it as the API server would. Every credential is a ResourceRef of type Secret:
 * the spec never holds a value, and never a Literal.
 */

/** shared.ResourceRef with SelectorType Secret: a key of a Secret in the Stack's own namespace. */
export interface SecretResourceRef {
    readonly type: "Secret";
    readonly secret: { readonly name: string; readonly key: string };
}

export function secretResourceRef(ref: SecretRef): SecretResourceRef {
    return { type: "Secret", secret: { name: ref.name, key: ref.key } };
}

/** A map of references, or nothing when empty (an empty map would only add noise to every diff). */
function refs(entries: readonly (readonly [string, SecretRef | undefined])[]): Record<string, SecretResourceRef> | undefined {
    const set = entries.filter((e): e is readonly [string, SecretRef] => e[1] !== undefined);
    return set.length > 0 ? Object.fromEntries(set.map(([k, r]) => [k, secretResourceRef(r)])) : undefined;
}

/** `spec.gitAuth` (shared.GitAuthConfig): the one mode set, each part a Secret reference. */
function gitAuth(auth: NonNullable<NonNullable<EnvironmentSettings["source"]["git"]>["auth"]>): Record<string, unknown> {
    if (auth.accessToken) return { accessToken: secretResourceRef(auth.accessToken) };
    if (auth.sshAuth) {
        const { sshPrivateKey, password } = auth.sshAuth;
        return {
            sshAuth: { sshPrivateKey: secretResourceRef(sshPrivateKey), ...(password ? { password: secretResourceRef(password) } : {}) },
        };
    }
    if (auth.basicAuth)
        return {
            basicAuth: { userName: secretResourceRef(auth.basicAuth.userName), password: secretResourceRef(auth.basicAuth.password) },
        };
    const app = auth.githubApp;
    // The schema lets exactly one mode through; an empty object here would be a schema bug.
    if (!app) throw new Error("source.git.auth names no mode");
    return {
        githubApp: {
            appID: secretResourceRef(app.appID),
            installationID: secretResourceRef(app.installationID),
            privateKey: secretResourceRef(app.privateKey),
        },
    };
}

/** The source fields, inlined as GitSource is, or `fluxSource`. */
function sourceFields(source: EnvironmentSettings["source"]): Record<string, unknown> {
    const { git, flux } = source;
    if (flux)
        return {
            fluxSource: {
                sourceRef: { apiVersion: flux.apiVersion, kind: flux.kind, name: flux.name },
                ...(flux.dir ? { dir: flux.dir } : {}),
            },
        };
    if (!git) throw new Error("source names neither git nor flux");
    return {
        projectRepo: git.repo,
        ...(git.commit !== undefined ? { commit: git.commit } : { branch: git.branch }),
        ...(git.dir ? { repoDir: git.dir } : {}),
        ...(git.auth ? { gitAuth: gitAuth(git.auth) } : {}),
    };
}

/** The Stack's spec for environment `env`, whose workspace runs as `serviceAccountName`. */
export function stackSpec(env: EnvironmentSettings, serviceAccountName: string): Record<string, unknown> {
    const envRefs = refs([["PULUMI_CONFIG_PASSPHRASE", env.secrets.passphrase], ...Object.entries(env.secrets.env)]);
    const secretsRef = refs(Object.entries(env.secrets.config));
    const { requests } = env.workspace;
    return {
        stack: env.stack,
        ...sourceFields(env.source),
        backend: env.backend,
        secretsProvider: env.secretsProvider,
        ...(envRefs ? { envRefs } : {}),
        ...(secretsRef ? { secretsRef } : {}),
        serviceAccountName,
        refresh: env.refresh,
        ...(env.resyncFrequencySeconds !== undefined ? { resyncFrequencySeconds: env.resyncFrequencySeconds } : {}),
        retryOnUpdateConflict: env.retryOnUpdateConflict,
        // Explicit even when false: deleting the Stack object must never destroy an environment by default.
        destroyOnFinalize: env.destroyOnFinalize,
        // Without it the operator destroys from a workspace holding only a Pulumi.yaml (stack_controller.go
        // shouldUseProjectInfoWorkspaceForDestroy, v2.9.0): `pulumi install` fails there with no package.json,
        // and this program's dynamic resources need its node_modules to be deleted, so nothing would be destroyed.
        ...(env.destroyOnFinalize ? { runProgram: true } : {}),
        ...(env.prerequisites.length > 0
            ? {
                  prerequisites: env.prerequisites.map((p) => ({
                      name: p.environment,
                      ...(p.succeededWithin ? { requirement: { succeededWithinDuration: p.succeededWithin } } : {}),
                  })),
              }
            : {}),
        // Applied by the operator as a strategic merge patch over the Workspace it generates.
        workspaceTemplate: {
            spec: {
                image: env.workspace.image,
                resources: { requests: { cpu: requests.cpu, memory: requests.memory, "ephemeral-storage": requests.ephemeralStorage } },
            },
        },
    };
}
