import { z } from "zod";
import { dnsSubdomain, filePath, grammarString as g, singleLine } from "../../config/model/grammar";
import { exactlyOne } from "./exactly-one";
import { branchName, pinnedCommit } from "./grammar";
import { secretRef } from "./secret-ref";
import { repositoryUrl } from "./urls";

/**
 * Where an environment's program comes from: this repository in git, pinned or followed, or a
 * Flux source object. The Stack fields are shared.GitSource, GitAuthConfig and FluxSource
 * (operator/api/pulumi/shared/stack_types.go, v2.9.0).
 */

/** `spec.gitAuth`, field for field as shared.GitAuthConfig (stack_types.go), each value a Secret reference. */
const gitAuth = z
    .strictObject({
        accessToken: secretRef.optional(),
        sshAuth: z.strictObject({ sshPrivateKey: secretRef, password: secretRef.optional() }).optional(),
        basicAuth: z.strictObject({ userName: secretRef, password: secretRef }).optional(),
        githubApp: z.strictObject({ appID: secretRef, installationID: secretRef, privateKey: secretRef }).optional(),
    })
    .superRefine(exactlyOne(["accessToken", "sshAuth", "basicAuth", "githubApp"], "the operator considers one authentication mode"));

const gitSource = z
    .strictObject({
        repo: repositoryUrl,
        /** Pinned: the operator runs exactly this commit (or tag) and never polls. */
        commit: g(pinnedCommit).optional(),
        /** Tracking: the operator polls the branch every resyncFrequencySeconds. */
        branch: g(branchName).optional(),
        dir: g(filePath).optional(),
        auth: gitAuth.optional(),
    })
    // NewGitSource refuses both and neither (operator/internal/controller/pulumi/git.go).
    .superRefine(exactlyOne(["commit", "branch"], "the operator runs a pinned commit or follows a branch"));

/** `spec.fluxSource` (shared.FluxSource): a Flux source object in the Stack's namespace. */
const fluxSource = z.strictObject({
    apiVersion: g(singleLine).min(1),
    kind: g(singleLine).min(1),
    name: g(dnsSubdomain),
    dir: g(filePath).optional(),
});

export const source = z
    .strictObject({ git: gitSource.optional(), flux: fluxSource.optional() })
    .superRefine(exactlyOne(["git", "flux"], "a Stack has one source"));
