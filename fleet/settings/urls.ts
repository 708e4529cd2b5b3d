import { z } from "zod";
import { CONCEAL } from "./secret-ref";

/**
 * The URLs of the fleet file: the state backend and the git repository. Either could carry a
 * credential (`postgres://user:password@host/db`, `https://token@github.com/...`), which would
 * then sit in a Stack's spec, readable by anyone who can read Stacks: refused, never echoed.
 */

/**
 * The backends a fleet can share, as the Pulumi CLI opens them: the DIY backends' drivers
 * s3://, gs://, azblob:// and postgres:// (pulumi/pulumi pkg/backend/diy/backend.go, imports),
 * and a Pulumi Cloud or self-hosted service at https://. Not file://: in a workspace pod that is
 * the pod's own disk, gone with it and seen by no other run.
 */
export const BACKEND_SCHEMES = ["s3:", "gs:", "azblob:", "postgres:", "https:"] as const;

/** Where a URL carries a credential, or undefined: a password in its user part, or a password parameter. */
function credentialIn(text: string): string | undefined {
    let url: URL;
    try {
        url = new URL(text);
    } catch {
        return undefined;
    }
    if (url.password !== "") return "a password in its user part";
    // lib/pq reads `password` from the query too; an https token may stand alone as the user.
    if ([...url.searchParams.keys()].some((k) => /pass(word)?$/i.test(k))) return "a password parameter";
    if (url.protocol === "https:" && url.username !== "") return "a user part (a token in front of the host)";
    return undefined;
}

/** Adds the concealed problem when the URL carries a credential; true when it did. */
function credentialIssue(ctx: z.core.$RefinementCtx<string>, value: string, how: string): boolean {
    const where = credentialIn(value);
    if (where === undefined) return false;
    ctx.addIssue({
        code: "custom",
        message: `must not carry a credential (it has ${where}; the value is not shown): ${how}`,
        input: undefined,
        params: { [CONCEAL]: true, allowed: "a URL without a password; the credential as a Secret reference" },
    });
    return true;
}

/** The state backend's URL (`spec.backend`, which the operator sets as PULUMI_BACKEND_URL). */
export const backendUrl = z.string().superRefine((value, ctx) => {
    // First: a URL with a password is never printed, whatever else is wrong with it.
    if (credentialIssue(ctx, value, "give it through secrets.env (PGPASSWORD for postgres://, the cloud's own variables for a bucket)"))
        return;
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(value)?.[0].toLowerCase();
    if (!BACKEND_SCHEMES.some((s) => s === scheme)) {
        ctx.addIssue({
            code: "custom",
            message:
                scheme === "file:"
                    ? "must be a backend every run shares: file:// in a workspace pod is that pod's own disk"
                    : "must be the URL of a shared state backend",
            input: value,
            params: {
                allowed:
                    "s3://<bucket>[/<prefix>], postgres://<host>[:<port>]/<database>, azblob://<container>, gs://<bucket>, https://<Pulumi Cloud>",
            },
        });
    }
});

/** The program's git repository (`spec.projectRepo`): https, ssh or git@host:path. */
export const repositoryUrl = z.string().superRefine((value, ctx) => {
    if (credentialIssue(ctx, value, "give it through source.git.auth")) return;
    if (!/^(https:\/\/|ssh:\/\/|git@)[^\s]+$/.test(value)) {
        ctx.addIssue({
            code: "custom",
            message: "must be the URL of a git repository",
            input: value,
            params: { allowed: "https://<host>/<path>, ssh://<host>/<path> or git@<host>:<path>" },
        });
    }
});
