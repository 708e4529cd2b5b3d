/**
 * scripts/tsx-lexer.mjs: after it, tsx lexes CommonJS files with its WebAssembly lexer, and
 * every command here (and `pulumi up`'s program) preloads it right after tsx.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import { parse } from "yaml";
import { inBackground, runToEnd } from "./support/background";

const ROOT = path.resolve(__dirname, "..");
const FIXTURE = path.join(ROOT, "test", "fixtures", "tsx-lexer");
const PRELOAD_FILE = "./scripts/tsx-lexer.mjs";
const PRELOAD = `--import ${PRELOAD_FILE}`;

// Started as the file loads (test/support/background.ts says why).
const withPreload = inBackground(async () => {
    const { tsxLexerPath } = (await import(path.join(ROOT, "scripts", "tsx-lexer.mjs"))) as { tsxLexerPath(): string | undefined };
    const lexer = tsxLexerPath();
    assert.ok(lexer, "no dist/lexer-<hash>.cjs in tsx: scripts/tsx-lexer.mjs waits for nothing");
    return runToEnd(
        process.execPath,
        ["--require", path.join(FIXTURE, "spy.cjs"), "--import", "tsx", "--import", PRELOAD_FILE, path.join(FIXTURE, "main.js")],
        { cwd: ROOT, env: { ...process.env, TSX_LEXER: lexer } },
    );
});

describe("tsx's WebAssembly lexer (scripts/tsx-lexer.mjs)", () => {
    test("a CommonJS file the program requires goes through it, not the JavaScript fallback", async () => {
        const { code, stdout, stderr } = await withPreload;
        assert.equal(code, 0, stderr);
        assert.ok(Number(stdout) > 0, `tsx's WebAssembly lexer ran ${stdout || "no"} times: it still takes its fallback after the preload`);
    });

    test("every command that loads tsx preloads it next: npm's scripts and pulumi's runtime", () => {
        const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
        const runtime = parse(fs.readFileSync(path.join(ROOT, "Pulumi.yaml"), "utf8")) as { runtime: { options: { nodeargs: string } } };
        const commands = { ...pkg.scripts, "Pulumi.yaml nodeargs": runtime.runtime.options.nodeargs };
        const withTsx = Object.entries(commands).filter(([, command]) => command.includes("--import tsx"));
        assert.ok(withTsx.length > 5);
        assert.deepEqual(
            withTsx.filter(([, command]) => !command.includes(`--import tsx ${PRELOAD}`)).map(([name]) => name),
            [],
            `commands that load tsx without ${PRELOAD} right after it`,
        );
    });
});
