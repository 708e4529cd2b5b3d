/**
 * The README stays short enough for a new user (the reference lives in docs/), and no link
 * between the README and docs/*.md points at a file or heading that moved or was renamed:
 * GitHub shows a broken anchor as a jump to the top of the page, which nobody notices.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, test } from "node:test";

const ROOT = path.resolve(__dirname, "..");
const MAX_README_LINES = 400;

/** The lines of a markdown text outside fenced code blocks; a line inside one is blank, so line numbers stay. */
function prose(text: string): string[] {
    let fence: string | undefined;
    return text.split("\n").map((line) => {
        const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
        if (fence !== undefined) {
            if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
            return "";
        }
        if (marker !== undefined) {
            fence = marker;
            return "";
        }
        return line;
    });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
function anchorOf(heading: string): string {
    return heading
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
        .replace(/ /g, "-");
}

/** The anchors of a markdown text's headings; a repeated heading gets -1, -2, … as on GitHub. */
function anchorsOf(text: string): Set<string> {
    const seen = new Map<string, number>();
    const anchors = new Set<string>();
    for (const line of prose(text)) {
        const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
        if (heading === undefined) continue;
        const base = anchorOf(heading);
        const n = seen.get(base) ?? 0;
        seen.set(base, n + 1);
        anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    return anchors;
}

/** The relative link targets of a markdown text (`[..](target)`), outside code, with their line. */
function relativeLinks(text: string): { line: number; target: string }[] {
    return prose(text).flatMap((raw, i) => {
        // Code spans may hold `](` (a YAML list, a shell substitution): blank them, keeping columns.
        const line = raw.replace(/`[^`]*`/g, (span) => " ".repeat(span.length));
        return [...line.matchAll(/\]\(([^)\s]+)\)/g)]
            .map((m) => m[1])
            .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
            .map((target) => ({ line: i + 1, target }));
    });
}

/** Each link of `files` (paths relative to `root`) whose file does not exist or has no such heading. */
function brokenLinks(root: string, files: readonly string[]): string[] {
    const anchors = new Map<string, Set<string>>();
    const anchorsIn = (file: string) => {
        if (!anchors.has(file)) anchors.set(file, anchorsOf(fs.readFileSync(path.join(root, file), "utf8")));
        return anchors.get(file)!;
    };
    return files.flatMap((file) =>
        relativeLinks(fs.readFileSync(path.join(root, file), "utf8")).flatMap(({ line, target }) => {
            const [ref, anchor] = target.split("#", 2);
            const linked = ref === "" ? file : path.normalize(path.join(path.dirname(file), decodeURIComponent(ref)));
            const where = `${file}:${line}: ${target}`;
            if (!fs.existsSync(path.join(root, linked))) return [`${where}: no file ${linked}`];
            if (anchor === undefined) return [];
            if (!linked.endsWith(".md")) return [`${where}: an anchor into ${linked}, which is not markdown`];
            return anchorsIn(linked).has(decodeURIComponent(anchor)) ? [] : [`${where}: ${linked} has no heading #${anchor}`];
        }),
    );
}

/** README.md and every markdown file of docs/, relative to `root`. */
function documents(root: string): string[] {
    const docs = fs.existsSync(path.join(root, "docs")) ? fs.readdirSync(path.join(root, "docs")) : [];
    return ["README.md", ...docs.filter((f) => f.endsWith(".md")).map((f) => path.join("docs", f))];
}

/**
 * The commands in a markdown text that write a stack file (`pulumi stack init`, `pulumi config
 * set`), with the stack each writes: the one named (`-s`, `--stack`, `stack init <name>`), else the
 * one the last `stack init` or `stack select` before it chose.
 */
function stackWriters(file: string, text: string): { file: string; line: number; stack: string }[] {
    let selected = "";
    return text.split("\n").flatMap((line, i) => {
        const command = /pulumi (stack (?:init|select)|config set)\b([^`#]*)/.exec(line);
        if (!command) return [];
        const named = /(?:^|\s)(?:-s|--stack)[ =](\S+)/.exec(command[2])?.[1];
        const positional = command[1] === "config set" ? undefined : /^\s+([^-\s]\S*)/.exec(command[2])?.[1];
        const stack = named ?? positional ?? selected;
        if (command[1] !== "config set") {
            selected = stack;
            if (command[1] === "stack select") return [];
        }
        return [{ file, line: i + 1, stack }];
    });
}

describe("README.md and docs/", () => {
    test(`the README is at most ${MAX_README_LINES} lines`, () => {
        const lines = fs.readFileSync(path.join(ROOT, "README.md"), "utf8").replace(/\n$/, "").split("\n").length;
        assert.ok(lines <= MAX_README_LINES, `README.md has ${lines} lines; move detail to docs/ and link to it`);
    });

    test("the README links to every file of docs/", () => {
        const targets = new Set(relativeLinks(fs.readFileSync(path.join(ROOT, "README.md"), "utf8")).map((l) => l.target.split("#")[0]));
        const unlinked = documents(ROOT)
            .slice(1)
            .filter((doc) => !targets.has(doc.split(path.sep).join("/")));
        assert.deepEqual(unlinked, []);
    });

    test("every relative link resolves to a file and, with an anchor, to a heading of it", () => {
        const files = documents(ROOT);
        assert.ok(files.length > 1, "docs/ holds markdown files");
        assert.ok(
            files.reduce((n, f) => n + relativeLinks(fs.readFileSync(path.join(ROOT, f), "utf8")).length, 0) > 50,
            "the links are found",
        );
        assert.deepEqual(brokenLinks(ROOT, files), []);
    });

    test("no command the docs give writes into a committed stack file (the example stays clean)", () => {
        const committed = execFileSync("git", ["ls-files", "Pulumi.*.yaml"], { cwd: ROOT, encoding: "utf8" })
            .split("\n")
            .flatMap((f) => /^Pulumi\.(.+)\.yaml$/.exec(f)?.[1] ?? []);
        assert.ok(committed.includes("dev"), `committed stack files: ${committed.join(", ")}`);
        const writers = documents(ROOT).flatMap((file) => stackWriters(file, fs.readFileSync(path.join(ROOT, file), "utf8")));
        assert.ok(writers.length >= 2, `found ${writers.length} commands that write a stack file`);
        assert.deepEqual(
            writers.filter((w) => committed.includes(w.stack)),
            [],
        );
    });

    test("the stack-file check reads the stack a command writes, named or selected before it", () => {
        const text = ["```bash", "pulumi stack init dev", "pulumi config set --secret k", "```", "`pulumi config set x 1 -s mine`"].join(
            "\n",
        );
        assert.deepEqual(
            stackWriters("a.md", text).map((w) => w.stack),
            ["dev", "dev", "mine"],
        );
    });

    test("the check finds a missing file, a missing heading and a link into code, and follows GitHub's anchors", () => {
        const root = fs.mkdtempSync(path.join(os.tmpdir(), "readme-links-"));
        try {
            fs.mkdirSync(path.join(root, "docs"));
            fs.writeFileSync(
                path.join(root, "docs", "a.md"),
                [
                    "# A",
                    "## `controlPlane`: the environment file",
                    "## Parity with NVIDIA's bundle (`npm run test:parity`)",
                    "## Notes",
                    "## Notes",
                    "```",
                    "# not a heading",
                    "```",
                ].join("\n"),
            );
            fs.writeFileSync(
                path.join(root, "README.md"),
                [
                    "[ok](docs/a.md#controlplane-the-environment-file) [ok](docs/a.md#parity-with-nvidias-bundle-npm-run-testparity)",
                    "[ok](docs/a.md#notes-1) [ok](docs/a.md) [ok](https://example.com/#nowhere) [ok](#readme)",
                    "[gone](docs/b.md) [no heading](docs/a.md#not-a-heading) [stale](#settings)",
                    "`[in code](docs/nowhere.md)`",
                ].join("\n"),
            );
            fs.appendFileSync(path.join(root, "README.md"), "\n# README\n");
            assert.deepEqual(brokenLinks(root, documents(root)), [
                "README.md:3: docs/b.md: no file docs/b.md",
                "README.md:3: docs/a.md#not-a-heading: docs/a.md has no heading #not-a-heading",
                "README.md:3: #settings: README.md has no heading #settings",
            ]);
        } finally {
            fs.rmSync(root, { recursive: true, force: true });
        }
    });
});
