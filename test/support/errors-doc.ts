import * as fs from "node:fs";
import * as path from "node:path";

export interface Documented {
    readonly text: string;
    readonly re: RegExp;
}

/**
 * The messages docs/errors.md documents: each code span in the first cell of a table row is one
 * message, where `<…>` stands for a value and `…` for any text. A span may start with the key the
 * message follows (`computePlanes[i].clusterName: ICMS refuses …`); the message alone counts too.
 */
export function documentedMessages(file = path.resolve(__dirname, "..", "..", "docs", "errors.md")): Documented[] {
    const rows = fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter((l) => l.startsWith("| `"));
    return rows.flatMap((row) => {
        const first = row.slice(1).split(/(?<!\\)\|/)[0];
        return [...first.matchAll(/`([^`]+)`/g)].flatMap((m) => {
            const full = m[1].replace(/\\\|/g, "|");
            const afterKey = /^[\w.[\]<>-]+: (.+)$/.exec(full)?.[1];
            return (
                [full, ...(afterKey ? [afterKey] : [])]
                    // A span that is mostly holes (`…`, `<name>`) names no message.
                    .filter((text) => text.replace(/<[^>]+>|…|\.\.\.|\s/g, "").length >= 4)
                    .map((text) => ({ text, re: wildcards(text, /( ?(?:<[^>]+>|…|\.\.\.) ?)/) }))
            );
        });
    });
}

/** `text` as a pattern: the parts `holes` matches stand for any text, the rest for itself. */
function wildcards(text: string, holes: RegExp): RegExp {
    return new RegExp(
        text
            .split(holes)
            .map((part, i) => (i % 2 === 1 ? "[\\s\\S]*?" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
            .join(""),
    );
}

/** The `.ts` files under `dir` (relative to `root`), in its folders too, as paths relative to `root`. */
export function sourceFiles(root: string, dir: string): string[] {
    return fs
        .readdirSync(path.join(root, dir), { withFileTypes: true })
        .flatMap((e) =>
            e.isDirectory() ? sourceFiles(root, path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : [],
        );
}

/** The messages of `messages` no documented pattern matches. */
export function undocumented(messages: Iterable<string>, documented = documentedMessages()): string[] {
    return [...new Set(messages)].filter((m) => !documented.some((d) => d.re.test(m))).sort();
}

/**
 * The message templates of `source` (`message: "…"` and `message: \`…${x}…\``) with no documented
 * message: a template matches when a documented pattern matches it with each `${…}` as text, or when
 * it, with each `${…}` as any text, matches a documented message.
 */
export function undocumentedTemplates(source: string, documented = documentedMessages()): string[] {
    const templates = [...source.matchAll(/message:\s*("(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`)/g)].map((m) =>
        m[1].slice(1, -1).replace(/\\(["`])/g, "$1"),
    );
    return templates.filter((t) => !templateDocumented(t, documented));
}

/**
 * Whether a message template (`…${x}…`) has an entry: a documented pattern matches it with each
 * `${…}` as text; or it, with each `${…}` as any text, matches a documented message; or a
 * documented message holds each of its words-long fixed parts, in order (the entry names a
 * value the template leaves open, as `preflight of the control plane failed`).
 */
export function templateDocumented(given: string, documented: readonly Documented[]): boolean {
    // Code spans cannot hold a backtick, so the entries quote commands without them.
    const template = given.replace(/`/g, "");
    const sample = template.replace(/\$\{[^}]*\}/g, "X");
    const re = wildcards(template, /(\$\{[^}]*\})/);
    const parts = template
        .split(/\$\{[^}]*\}/)
        .map((p) =>
            p
                .replace(/\\n/g, " ")
                .trim()
                .replace(/^[:;,.(]+|[:;,.)]+$/g, "")
                .trim(),
        )
        .filter((p) => p.length >= 4);
    const inOrder = (text: string) => {
        let from = 0;
        for (const p of parts) {
            const at = text.indexOf(p, from);
            if (at < 0) return false;
            from = at + p.length;
        }
        return parts.length > 0;
    };
    return documented.some((d) => d.re.test(sample) || re.test(d.text) || inOrder(d.text));
}

/** The messages thrown in `source` (`new Error(…)`, `RunError`, the commands' usage errors) as templates. */
export function thrownTemplates(source: string): string[] {
    return [
        ...source.matchAll(/new (?:pulumi\.RunError|Error|UsageError|Stop|StackFileError)\(\s*("(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`)/g),
    ].map((m) =>
        m[1]
            .slice(1, -1)
            .replace(/\\`/g, "`")
            // A template cut at a nested template literal: up to its last whole part.
            .replace(/\$\{[^}]*$/, ""),
    );
}
