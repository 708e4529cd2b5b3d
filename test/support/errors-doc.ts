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
                    .filter((text) => text.replace(/<[^>]+>|…|\.\.\./g, "").trim().length >= 8)
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
    return templates.filter((t) => {
        const sample = t.replace(/\$\{[^}]*\}/g, "X");
        const re = wildcards(t, /(\$\{[^}]*\})/);
        return !documented.some((d) => d.re.test(sample) || re.test(d.text));
    });
}
