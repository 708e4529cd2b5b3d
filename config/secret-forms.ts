import { createRequire } from "node:module";
import { ConfigProblem, keyPath } from "./model/errors";
import { PROJECT, SecretKey } from "./model/keys";

/**
 * The forms of the secret keys, checked on their text before anything is declared. A problem
 * names the key and a line and column, never the text: parsers quote what they could not read,
 * and a secret's text must reach no message.
 */

/** Sent in an HTTP header (Authorization, X-Vault-Token). */
const HEADER_TOKENS: readonly SecretKey[] = ["nvcfAdminToken", "openbaoToken"];
/** Passed on as one value: docker auths, Helm registry logins, Helm values and environment variables. */
const ONE_LINE: readonly SecretKey[] = [
    "ngcApiKey",
    "accountRegistryKey",
    "sidecarRegistryKey",
    "chartRegistryPassword",
    "cassandraPassword",
];

export function secretFormProblems(key: SecretKey, text: string): ConfigProblem[] {
    const at = `${PROJECT}:${key}`;
    if (HEADER_TOKENS.includes(key)) {
        const bad = /[^\x21-\x7e]/.exec(text);
        if (!bad) return [];
        return [
            {
                key: at,
                message: `is sent in an HTTP header, so it must be one line of printable characters without spaces; ${describeAt(text, bad.index)}`,
                allowed: "the token alone, e.g. `pulumi config set --secret " + key + ' "$(cat token-file)"`',
            },
        ];
    }
    if (ONE_LINE.includes(key)) {
        // eslint-disable-next-line no-control-regex -- finding control characters is the point
        const bad = /[\u0000-\u001f\u007f]/.exec(text);
        if (bad) return [{ key: at, message: `must be one line without control characters; ${describeAt(text, bad.index)}` }];
        return key === "cassandraPassword" ? cassandraPasswordProblems(at, text) : [];
    }
    if (key === "kubeconfig") return kubeconfigProblems(at, text);
    if (key === "computePlaneKubeconfigs") return kubeconfigMapProblems(at, text);
    return [];
}

/**
 * The characters NVIDIA's migrations cannot carry in the Cassandra password. OpenBao's migrations
 * write it with `bao kv put <path> username=… password=$value`, unquoted: whitespace splits it,
 * `*`, `?` and `[` are globbed, and a value starting with `@` is read from a file of that name
 * (`migrations/openbao/migrations/utils/functions.sh`, `write_secrets_kv`). The Cassandra
 * migrations put it in `CREATE ROLE … password = '${SERVICE_ROLE_PASSWORD}'`, where `'` ends the
 * string; the services' agent templates put it in JSON unescaped, where `"` and `\` break it.
 */
const CASSANDRA_PASSWORD_BREAKERS: readonly [RegExp, string][] = [
    [/\s/, "whitespace, which splits the value where OpenBao's migrations write it (unquoted `bao kv put`)"],
    [/[*?[]/, "a glob character (* ? [), which the same unquoted line expands"],
    [/'/, "a single quote, which ends the string of the roles' CQL (`password = '…'`)"],
    [/["\\]/, "a double quote or a backslash, which break the JSON the services' agent templates render"],
];

function cassandraPasswordProblems(at: string, text: string): ConfigProblem[] {
    const allowed =
        "letters, digits and punctuation other than ' \" \\ * ? [; not starting with @ (the generated one, when unset, is 32 letters and digits)";
    if (text.startsWith("@")) {
        return [
            { key: at, message: "must not start with @: OpenBao's migrations would read the password from a file of that name", allowed },
        ];
    }
    for (const [re, what] of CASSANDRA_PASSWORD_BREAKERS) {
        const bad = re.exec(text);
        if (bad) return [{ key: at, message: `holds ${what}, at column ${bad.index + 1}`, allowed }];
    }
    return [];
}

/** A position in the text, as line and column, and what kind of character is there: never the text. */
function describeAt(text: string, index: number): string {
    const { line, column } = lineColumn(text, index);
    const ch = text[index];
    const what =
        ch === "\n"
            ? "a line break"
            : ch === "\r"
              ? "a carriage return"
              : ch === " "
                ? "a space"
                : ch === "\t"
                  ? "a tab"
                  : "a control or non-ASCII character";
    return `there is ${what} at line ${line}, column ${column}`;
}

function lineColumn(text: string, index: number): { line: number; column: number } {
    const before = text.slice(0, index);
    const line = before.split("\n").length;
    return { line, column: index - (before.lastIndexOf("\n") + 1) + 1 };
}

type YamlLoad = (text: string) => unknown;
let yamlLoad: YamlLoad | undefined;

/** The YAML parser of @kubernetes/client-node, the one that reads these kubeconfigs in the providers. */
function loadYaml(): YamlLoad {
    if (!yamlLoad) {
        const requireFromClient = createRequire(require.resolve("@kubernetes/client-node"));
        yamlLoad = (requireFromClient("js-yaml") as { load: YamlLoad }).load;
    }
    return yamlLoad;
}

function kubeconfigProblems(key: string, text: string): ConfigProblem[] {
    let doc: unknown;
    try {
        doc = loadYaml()(text);
    } catch (err) {
        const mark = (err as { mark?: { line?: unknown; column?: unknown } }).mark;
        const where =
            mark && typeof mark.line === "number" && typeof mark.column === "number"
                ? ` at line ${mark.line + 1}, column ${mark.column + 1}`
                : "";
        return [{ key, message: `is not valid YAML${where}; the kubeconfig is checked before anything runs, and its text is never shown` }];
    }
    if (!doc || typeof doc !== "object" || Array.isArray(doc)) {
        return [{ key, message: "is not a kubeconfig: its YAML is not a mapping (apiVersion, clusters, contexts, users)" }];
    }
    return [];
}

function kubeconfigMapProblems(key: string, text: string): ConfigProblem[] {
    let map: unknown;
    try {
        map = JSON.parse(text);
    } catch (err) {
        // JSON.parse's message quotes the text; only the position it names is kept.
        const position = /at position (\d+)/.exec(err instanceof Error ? err.message : "");
        const where = position ? (({ line, column }) => ` at line ${line}, column ${column}`)(lineColumn(text, Number(position[1]))) : "";
        return [
            {
                key,
                message: `is not valid JSON${where}`,
                allowed:
                    "an object of kubeconfig texts by cluster name: `pulumi config set --secret --path 'computePlaneKubeconfigs.<cluster>' \"$(cat file)\"`",
            },
        ];
    }
    if (!map || typeof map !== "object" || Array.isArray(map)) {
        return [
            {
                key,
                message: "is not an object of kubeconfig texts by cluster name",
                allowed: "`pulumi config set --secret --path 'computePlaneKubeconfigs.<cluster>' \"$(cat file)\"`",
            },
        ];
    }
    return Object.entries(map).flatMap(([name, value]) =>
        typeof value === "string"
            ? kubeconfigProblems(keyPath(key, [name]), value)
            : [{ key: keyPath(key, [name]), message: "is not a kubeconfig text (a string)" }],
    );
}
