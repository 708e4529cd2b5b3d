import { z } from "zod";

/**
 * The grammars of what a config string becomes: a Kubernetes name or label, an image or chart
 * reference, a DNS name, an HTTP header. Each is checked where the schema reads the value, so a
 * value Kubernetes, Helm or an HTTP client would refuse (or misread) stops the program before
 * anything is declared, with the key, the value and the grammar in the message.
 */

/** A grammar: what the value must be, in words, and why a value is not one (undefined when it is). */
export interface Grammar {
    /** As it reads after "must be ", e.g. "an RFC 1123 label". */
    readonly what: string;
    /** The ConfigError's `allowed:` text. */
    readonly allowed: string;
    readonly check: (value: string) => string | undefined;
}

export const INT32_MAX = 2_147_483_647;

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

function describeChar(value: string): string | undefined {
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    const bad = /[\s\u0000-\u001f\u007f]/.exec(value);
    if (!bad) return undefined;
    const names: Record<string, string> = { "\n": "a newline", "\r": "a carriage return", "\t": "a tab", " ": "a space" };
    return `it contains ${names[bad[0]] ?? `the character U+${bad[0].charCodeAt(0).toString(16).padStart(4, "0").toUpperCase()}`}`;
}

function labelProblem(label: string): string | undefined {
    if (label === "") return "it has an empty label (two dots, or a leading or trailing dot)";
    if (label.length > 63) return `the label ${label.slice(0, 20)}... is ${label.length} characters long (at most 63)`;
    if (/[A-Z]/.test(label)) return "it contains upper-case letters";
    if (!LABEL.test(label))
        return `the label ${JSON.stringify(label)} has characters other than a-z, 0-9 and '-', or starts or ends with '-'`;
    return undefined;
}

/** RFC 1123 label: namespaces, Service names, listener names. */
export const dnsLabel: Grammar = {
    what: "an RFC 1123 label",
    allowed: "lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters",
    check: (v) => (v === "" ? "it is empty" : (describeChar(v) ?? (v.includes(".") ? "it contains '.'" : labelProblem(v)))),
};

/** RFC 1123 subdomain: most Kubernetes object names, and DNS names. */
export const dnsSubdomain: Grammar = {
    what: "an RFC 1123 subdomain",
    allowed: "dot-separated labels of lower-case letters, digits and '-' (each at most 63 characters), at most 253 characters",
    check: (v) => {
        if (v === "") return "it is empty";
        const ch = describeChar(v);
        if (ch) return ch;
        if (v.length > 253) return `it is ${v.length} characters long (at most 253)`;
        for (const label of v.split(".")) {
            const p = labelProblem(label);
            if (p) return p;
        }
        return undefined;
    },
};

/** A route or certificate hostname: an RFC 1123 subdomain, optionally with a leading `*.` wildcard (Gateway API, cert-manager). */
export const hostname: Grammar = {
    what: "a DNS hostname",
    allowed: "an RFC 1123 subdomain (lower-case labels of at most 63 characters, at most 253 in all), optionally starting with '*.'",
    check: (v) => dnsSubdomain.check(v.startsWith("*.") ? v.slice(2) : v),
};

/** A label key, annotation key, node selector or toleration key: `[prefix/]name`. */
export const qualifiedName: Grammar = {
    what: "a Kubernetes label or annotation key",
    allowed:
        "an optional DNS subdomain prefix and '/', then a name of at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
    check: (v) => {
        if (v === "") return "it is empty";
        const ch = describeChar(v);
        if (ch) return ch;
        const parts = v.split("/");
        if (parts.length > 2) return "it has more than one '/'";
        const name = parts[parts.length - 1];
        if (parts.length === 2) {
            const prefix = dnsSubdomain.check(parts[0]);
            if (prefix) return `its prefix ${JSON.stringify(parts[0])} is not a DNS subdomain: ${prefix}`;
        }
        if (name === "") return "its name part is empty";
        if (name.length > 63) return `its name part is ${name.length} characters long (at most 63)`;
        if (!NAME_PART.test(name))
            return "its name part has characters other than letters, digits, '-', '_' and '.', or starts or ends with one of '-', '_', '.'";
        return undefined;
    },
};

/** A label value (node selectors, toleration values, pod labels); may be empty. */
export const labelValue: Grammar = {
    what: "a Kubernetes label value",
    allowed: "empty, or at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
    check: (v) => {
        if (v === "") return undefined;
        const ch = describeChar(v);
        if (ch) return ch;
        if (v.length > 63) return `it is ${v.length} characters long (at most 63)`;
        return NAME_PART.test(v)
            ? undefined
            : "it has characters other than letters, digits, '-', '_' and '.', or starts or ends with one of '-', '_', '.'";
    },
};

const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/** An image tag, pinned: never `latest`, which would move under a running install. */
export const imageTag: Grammar = {
    what: "a pinned image tag",
    allowed: "up to 128 letters, digits, '_', '.' and '-', not starting with '.' or '-', and not latest",
    check: (v) => {
        if (v === "") return "it is empty";
        const ch = describeChar(v);
        if (ch) return ch;
        if (v === "latest") return "latest is not a pinned version";
        return TAG.test(v) ? undefined : "it has characters other than letters, digits, '_', '.' and '-', or is over 128 characters";
    },
};

const HOST_LABEL = /^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?$/;

function portProblem(port: string): string | undefined {
    if (!/^[0-9]{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) return `the port ${JSON.stringify(port)} is not 1-65535`;
    return undefined;
}

/** `host[:port]` with a DNS name, an IPv4 address or a bracketed IPv6 address. */
function hostPortProblem(v: string): string | undefined {
    if (v === "") return "it is empty";
    const ch = describeChar(v);
    if (ch) return ch;
    const m = /^(\[[0-9A-Fa-f:.]+\]|[^:/[\]@]+)(?::([^:/@]*))?$/.exec(v);
    if (!m) return "it is not host or host:port (no scheme, path or user)";
    const [, host, port] = m;
    if (port !== undefined) {
        const p = portProblem(port);
        if (p) return p;
    }
    if (host.startsWith("[")) return undefined;
    if (host.length > 253) return `the host is ${host.length} characters long (at most 253)`;
    for (const label of host.split(".")) {
        if (label === "") return "it has an empty label (two dots, or a leading or trailing dot)";
        if (label.length > 63) return `a label is ${label.length} characters long (at most 63)`;
        if (!HOST_LABEL.test(label)) return `the label ${JSON.stringify(label)} has characters other than letters, digits and '-'`;
    }
    return undefined;
}

/** A registry host: `host[:port]`, as a container image or OCI chart reference starts. */
export const registryHost: Grammar = {
    what: "a registry host",
    allowed: "host or host:port, such as nvcr.io or registry.example.com:5000, without a scheme or path",
    check: hostPortProblem,
};

/** An HTTP Host header (and TLS server name) override: `host[:port]`, nothing an HTTP client would refuse or split. */
export const hostHeader: Grammar = {
    what: "a Host header value",
    allowed: "host or host:port, such as sis.nvcf.example.com, without spaces, control characters, a scheme or a path",
    check: hostPortProblem,
};

const PATH_COMPONENT = /^[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*$/;

/** An image or chart repository path below the registry: `org/team/...`, OCI's path grammar. */
export const repositoryPath: Grammar = {
    what: "a repository path",
    allowed: "'/'-separated components of lower-case letters and digits, joined by '.', '_', '__' or '-', such as nvidia/nvcf",
    check: (v) => {
        if (v === "") return "it is empty";
        const ch = describeChar(v);
        if (ch) return ch;
        if (v.length > 255) return `it is ${v.length} characters long (at most 255)`;
        if (/[A-Z]/.test(v)) return "it contains upper-case letters";
        const bad = v.split("/").find((c) => !PATH_COMPONENT.test(c));
        return bad === undefined
            ? undefined
            : `the component ${JSON.stringify(bad)} is not lower-case letters and digits joined by '.', '_', '__' or '-'`;
    },
};

/** An image name without tag: `[registry/]path`. */
export const imageName: Grammar = {
    what: "an image repository",
    allowed: "[registry[:port]/]path, such as nvcr.io/nvidia/nvcf/otel-collector, without a tag",
    check: (v) => {
        if (v === "") return "it is empty";
        const ch = describeChar(v);
        if (ch) return ch;
        const parts = v.split("/");
        const first = parts[0];
        if (parts.length > 1 && (first.includes(".") || first.includes(":") || first === "localhost")) {
            const host = hostPortProblem(first);
            if (host) return `its registry ${JSON.stringify(first)}: ${host}`;
            return repositoryPath.check(parts.slice(1).join("/"));
        }
        return repositoryPath.check(v);
    },
};

/** A full image reference, pinned by a tag (not latest) or a digest. */
export const imageReference: Grammar = {
    what: "a pinned image reference",
    allowed: "[registry[:port]/]path:tag or path@sha256:<64 hex digits>, such as registry.k8s.io/pause:3.9; not latest",
    check: (v) => {
        if (v === "") return "it is empty";
        const ch = describeChar(v);
        if (ch) return ch;
        let rest = v;
        const at = rest.indexOf("@");
        let digest: string | undefined;
        if (at >= 0) {
            digest = rest.slice(at + 1);
            rest = rest.slice(0, at);
            if (!/^sha256:[0-9a-f]{64}$/.test(digest)) return "its digest is not sha256:<64 lower-case hex digits>";
        }
        const colon = rest.lastIndexOf(":");
        let tag: string | undefined;
        if (colon > rest.lastIndexOf("/")) {
            tag = rest.slice(colon + 1);
            rest = rest.slice(0, colon);
            const t = imageTag.check(tag);
            if (t) return `its tag: ${t}`;
        }
        if (tag === undefined && digest === undefined) return "it has neither a tag nor a digest, so it is not pinned";
        return imageName.check(rest);
    },
};

const SEMVER =
    /^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;

/** A chart version, pinned: one semantic version (Helm would take a range, or the newest for ""). */
export const chartVersion: Grammar = {
    what: "a pinned semantic version",
    allowed: "MAJOR.MINOR.PATCH with an optional leading v, -prerelease and +build, such as 1.21.3 or v1.17.0; no range, no latest",
    check: (v) => {
        if (v === "") return "it is empty, which would install whatever version is newest";
        const ch = describeChar(v);
        if (ch) return ch;
        return SEMVER.test(v) ? undefined : "it is not one semantic version";
    },
};

/** A file-system path: one line, no surrounding spaces. */
export const filePath: Grammar = {
    what: "a path",
    allowed: "a non-empty path on one line, without control characters or leading or trailing spaces",
    check: (v) => {
        if (v === "") return "it is empty";
        if (CONTROL.test(v)) return describeChar(v.replace(/ /g, ""));
        if (v.trim() !== v) return "it starts or ends with white space";
        return undefined;
    },
};

/** A value that lands in a Helm value or an environment variable as one line (URLs, addresses, names). */
export const singleLine: Grammar = {
    what: "a single line",
    allowed: "text without newlines or other control characters, and without leading or trailing spaces",
    check: (v) => {
        if (CONTROL.test(v)) return describeChar(v.replace(/ /g, ""));
        // All spaces reads as unset, as the rules' required checks read it.
        if (v.trim() !== v && v.trim() !== "") return "it starts or ends with white space";
        return undefined;
    },
};

/** A place in a Kubernetes object, as `npm run status -- --drift` writes it. */
export const fieldPath: Grammar = {
    what: "a field path",
    allowed:
        "field names joined by '.', a list item's name or a key with dots in [...], such as spec.replicas, data[config.yaml] or spec.template.spec.containers[*].image; * matches anything within one step",
    check: (v) => {
        if (v === "") return "it is empty";
        const ch = describeChar(v);
        if (ch) return ch;
        return /^[^.[\]]+(\.[^.[\]]+|\[[^\]]+\])*$/.test(v) ? undefined : "it is not steps joined by '.' and [...]";
    },
};

/** A registry user name: it is joined to the key as `user:key` in a docker auth. */
export const registryUsername: Grammar = {
    what: "a registry user name",
    allowed: "a non-empty user name without ':', spaces or control characters, such as $oauthtoken",
    check: (v) => {
        if (v === "") return "it is empty";
        const ch = describeChar(v);
        if (ch) return ch;
        return v.includes(":") ? "it contains ':', which separates user and password in a docker auth" : undefined;
    },
};

export interface GrammarOptions {
    /** Replaces "must be <what>: <why>" (keeps an established message). */
    readonly message?: string;
    /** false: no `allowed:` part (keeps an established message). */
    readonly allowed?: false;
    /** Values accepted as they are besides the grammar (the bundle's placeholders and "unset" forms). */
    readonly also?: readonly string[];
    /** Accept "" and spaces alone. */
    readonly blank?: boolean;
}

/** A string of this grammar, as a zod schema: one issue naming the grammar and why the value is not one. */
export function grammarString(grammar: Grammar, options: GrammarOptions = {}) {
    return z.string().superRefine((value, ctx) => {
        if (options.also?.includes(value) || (options.blank && /^ *$/.test(value))) return;
        const why = grammar.check(value);
        if (why === undefined) return;
        ctx.addIssue({
            code: "custom",
            input: value,
            message: options.message ?? `must be ${grammar.what}: ${why}`,
            params: options.allowed === false ? {} : { allowed: grammar.allowed },
        });
    });
}

/**
 * A string of this grammar, or "" (the bundle's "unset" for that key). Spaces alone read as
 * unset too: the rules' required checks trim, and name the key when it is needed.
 */
export function orEmpty(grammar: Grammar, options: GrammarOptions = {}) {
    return grammarString(grammar, { ...options, blank: true });
}

/** A map whose keys and values each follow a grammar (labels, annotations, node selectors). */
export function stringMap(key: Grammar, value?: Grammar) {
    return z.record(z.string(), z.string()).superRefine((map, ctx) => {
        for (const [k, v] of Object.entries(map)) {
            const keyWhy = key.check(k);
            if (keyWhy) {
                ctx.addIssue({
                    code: "custom",
                    path: [k],
                    input: k,
                    message: `the key must be ${key.what}: ${keyWhy}`,
                    params: { allowed: key.allowed },
                });
            }
            const valueWhy = value?.check(v);
            if (value && valueWhy) {
                ctx.addIssue({
                    code: "custom",
                    path: [k],
                    input: v,
                    message: `must be ${value.what}: ${valueWhy}`,
                    params: { allowed: value.allowed },
                });
            }
        }
    });
}

/** An absolute URL of these schemes, on one line (the URL parser would silently drop a newline or tab). */
export function url(protocols: RegExp) {
    return z.url({ protocol: protocols }).superRefine((value, ctx) => {
        const ch = describeChar(value);
        if (ch)
            ctx.addIssue({
                code: "custom",
                input: value,
                message: `must be a URL: ${ch}`,
                params: { allowed: "a URL without spaces or control characters" },
            });
    });
}

/** A Kubernetes int32 count (replicas and the like). */
export function int32(min = 0) {
    return z
        .number()
        .int()
        .min(min)
        .max(INT32_MAX, { message: `must be at most ${INT32_MAX} (a Kubernetes int32)` });
}

/** A TCP port. */
export function port() {
    return z.number().int().min(1, { message: "must be a port, 1-65535" }).max(65535, { message: "must be a port, 1-65535" });
}

/** A PodDisruptionBudget bound: a count (int32), a percentage, or "" (the NVCF charts' "unset"). */
export function pdbBound() {
    const allowed = 'a whole number 0-2147483647, a percentage 0%-100% such as "50%", or "" (unset)';
    return z.union([z.number(), z.string()]).superRefine((v, ctx) => {
        const ok = typeof v === "number" ? Number.isInteger(v) && v >= 0 && v <= INT32_MAX : /^((100|[1-9]?[0-9])%)?$/.test(v);
        if (!ok) ctx.addIssue({ code: "custom", input: v, message: "must be a count or a percentage", params: { allowed } });
    });
}

/** Toleration effects Kubernetes knows ("" matches every effect). */
export const TOLERATION_EFFECTS = ["", "NoSchedule", "PreferNoSchedule", "NoExecute"] as const;
/** Image pull policies ("" leaves the chart's). */
export const PULL_POLICIES = ["", "Always", "IfNotPresent", "Never"] as const;
