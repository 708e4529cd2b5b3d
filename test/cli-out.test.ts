/**
 * `--out` writes a regular file whole or not at all, and everything else as it is: run as root,
 * `--out /dev/null` once left the machine's /dev/null a regular file (issue #51). These tests run
 * as root too, so they check what the file system holds afterwards, never only what was printed.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { outTarget, writeOut, type WriteFile } from "../scripts/lib/cli";
import type { ProgramRun } from "../scripts/lib/mock-engine";
import { renderCli } from "../scripts/render/cli";
import { capture } from "./support/capture";

const ROOT = path.resolve(__dirname, "..");

let tmp: string;
before(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nvcf-cli-out-"))));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A fresh directory of the test's own, so that "nothing else is left in it" can be checked. */
function dir(name: string): string {
    const made = path.join(tmp, name);
    fs.mkdirSync(made);
    return made;
}

describe("--out", () => {
    test("a file that does not exist yet is created with the text, and nothing else is left beside it", () => {
        const d = dir("missing");
        const file = path.join(d, "dev.json");
        writeOut(file, "{}\n", capture());
        assert.equal(fs.readFileSync(file, "utf8"), "{}\n");
        assert.deepEqual(fs.readdirSync(d), ["dev.json"]);
    });

    test("a regular file is replaced, keeping its mode and its owner", () => {
        const d = dir("regular");
        const file = path.join(d, "dev.json");
        fs.writeFileSync(file, "old render, longer than the new one\n");
        fs.chmodSync(file, 0o600);
        // Root rewriting a user's file: it stays the user's (only root can give it to another uid).
        const asRoot = process.getuid?.() === 0;
        if (asRoot) fs.chownSync(file, 12345, 12346);
        writeOut(file, "new\n", capture());
        const stat = fs.lstatSync(file);
        assert.equal(fs.readFileSync(file, "utf8"), "new\n");
        assert.ok(stat.isFile());
        assert.equal(stat.mode & 0o777, 0o600);
        if (asRoot) assert.deepEqual([stat.uid, stat.gid], [12345, 12346]);
        assert.deepEqual(fs.readdirSync(d), ["dev.json"]);
    });

    test("through a symlink to a file in another directory, the target gets the text and the link stays", () => {
        const links = dir("links");
        const targets = dir("targets");
        fs.writeFileSync(path.join(targets, "dev.json"), "old\n");
        // Relative, as `ln -s ../targets/dev.json` makes it: it resolves from the link's directory.
        fs.symlinkSync("../targets/dev.json", path.join(links, "dev.json"));
        writeOut(path.join(links, "dev.json"), "new\n", capture());
        assert.ok(fs.lstatSync(path.join(links, "dev.json")).isSymbolicLink());
        assert.equal(fs.readlinkSync(path.join(links, "dev.json")), "../targets/dev.json");
        assert.equal(fs.readFileSync(path.join(targets, "dev.json"), "utf8"), "new\n");
        assert.deepEqual(fs.readdirSync(links), ["dev.json"]);
        assert.deepEqual(fs.readdirSync(targets), ["dev.json"]);
    });

    test("a relative link reached through a linked directory resolves from where the link really is", () => {
        const real = dir("real");
        fs.mkdirSync(path.join(real, "sub"));
        fs.writeFileSync(path.join(real, "dev.json"), "old\n");
        fs.symlinkSync("../dev.json", path.join(real, "sub", "dev.json"));
        fs.symlinkSync(path.join(real, "sub"), path.join(tmp, "alias"));
        // The system takes `..` from real/sub, not from the alias: real/dev.json, not <tmp>/dev.json.
        writeOut(path.join(tmp, "alias", "dev.json"), "new\n", capture());
        assert.equal(fs.readFileSync(path.join(real, "dev.json"), "utf8"), "new\n");
        assert.ok(fs.lstatSync(path.join(real, "sub", "dev.json")).isSymbolicLink());
        assert.ok(!fs.existsSync(path.join(tmp, "dev.json")));
    });

    test("a symlink to a file not yet there creates the file and stays a link", () => {
        const d = dir("dangling");
        fs.symlinkSync("real.json", path.join(d, "dev.json"));
        writeOut(path.join(d, "dev.json"), "new\n", capture());
        assert.ok(fs.lstatSync(path.join(d, "dev.json")).isSymbolicLink());
        assert.equal(fs.readFileSync(path.join(d, "real.json"), "utf8"), "new\n");
        assert.deepEqual(fs.readdirSync(d).sort(), ["dev.json", "real.json"]);
    });

    test("`-` is the command's standard output, and no file named `-` appears", () => {
        const io = capture();
        const listed = fs.readdirSync(process.cwd());
        writeOut("-", "{}\n", io);
        assert.equal(io.stdout, "{}\n");
        assert.deepEqual(fs.readdirSync(process.cwd()), listed);
    });

    test("a character device stays one: /dev/null after a write is still /dev/null", () => {
        // Checked first: were it to be replaced, the write below would break the machine's /dev/null.
        assert.deepEqual(outTarget("/dev/null"), { kind: "direct", file: "/dev/null" });
        const device = fs.lstatSync("/dev/null");
        writeOut("/dev/null", "{}\n", capture());
        const stat = fs.lstatSync("/dev/null");
        assert.ok(stat.isCharacterDevice());
        assert.deepEqual([stat.ino, stat.rdev], [device.ino, device.rdev]);
        assert.equal(fs.readdirSync("/dev").filter((name) => name.startsWith("null.")).length, 0);
    });

    test("a FIFO stays one, and its reader gets the text", async () => {
        const fifo = path.join(dir("fifo"), "render.pipe");
        execFileSync("mkfifo", [fifo]);
        // A reader of its own process: the write blocks until a reader opens the FIFO.
        const reader = spawn("cat", [fifo], { stdio: ["ignore", "pipe", "inherit"] });
        let read = "";
        reader.stdout.on("data", (chunk: Buffer) => (read += chunk.toString()));
        const ended = new Promise<number | null>((resolve) => reader.on("close", resolve));
        try {
            writeOut(fifo, "{}\n", capture());
            assert.ok(fs.lstatSync(fifo).isFIFO(), "the FIFO was replaced");
            assert.equal(await ended, 0);
            assert.equal(read, "{}\n");
        } finally {
            reader.kill();
        }
    });

    test(
        "a descriptor link (/dev/fd/N, /dev/stdout) writes the open file, not a new one",
        { skip: !fs.existsSync("/proc/self/fd") },
        () => {
            const file = path.join(dir("descriptor"), "log");
            fs.writeFileSync(file, "");
            const opened = fs.statSync(file);
            const fd = fs.openSync(file, "a");
            try {
                // /dev/fd is a link to /proc/self/fd, whose entries are links to the open files.
                writeOut(`/dev/fd/${fd}`, "{}\n", capture());
            } finally {
                fs.closeSync(fd);
            }
            // A rename would have left the descriptor on the old file and put a new one at the path.
            assert.equal(fs.statSync(file).ino, opened.ino);
            assert.equal(fs.readFileSync(file, "utf8"), "{}\n");
            assert.equal(outTarget("/dev/stdout").kind, "direct");
        },
    );

    test("a write that fails part-way leaves the old file exactly as it was, and no temporary file", () => {
        const d = dir("failing");
        const file = path.join(d, "dev.json");
        fs.writeFileSync(file, "old render\n");
        // A full disk: half the text written, then the error.
        const fullDisk: WriteFile = (target, text, options) => {
            fs.writeFileSync(target, text.slice(0, text.length / 2), options);
            throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
        };
        assert.throws(() => writeOut(file, "new render, never whole\n", capture(), fullDisk), /ENOSPC/);
        assert.equal(fs.readFileSync(file, "utf8"), "old render\n");
        assert.deepEqual(fs.readdirSync(d), ["dev.json"]);
    });

    test("a file already at the temporary name is someone else's: the write fails and both stay", () => {
        const d = dir("taken");
        const file = path.join(d, "dev.json");
        fs.writeFileSync(file, "old render\n");
        const theirs = `${file}.${process.pid}.tmp`;
        fs.writeFileSync(theirs, "theirs\n");
        assert.throws(() => writeOut(file, "new\n", capture()), /EEXIST/);
        assert.equal(fs.readFileSync(file, "utf8"), "old render\n");
        assert.equal(fs.readFileSync(theirs, "utf8"), "theirs\n");
    });
});

describe("render --out", () => {
    // A program of no resources: what is checked is where the render goes, not what it holds.
    const run = async (): Promise<ProgramRun> => ({ resources: [], outputs: {} });
    const EMPTY = '{\n  "stack": "dev",\n  "project": "nvcf-self-managed",\n  "resources": []\n}\n';

    test("`--out -` prints the render on the command's stdout", async () => {
        const io = capture();
        assert.equal(await renderCli(["--stack", "dev", "--dir", ROOT, "--out", "-"], io, {}, run), 0);
        assert.equal(io.stdout, EMPTY);
    });

    test("`--out <link>` writes the link's target and leaves the link", async () => {
        const d = dir("render-link");
        fs.writeFileSync(path.join(d, "real.json"), "old\n");
        fs.symlinkSync("real.json", path.join(d, "dev.json"));
        const io = capture();
        assert.equal(await renderCli(["--stack", "dev", "--dir", ROOT, "--out", path.join(d, "dev.json")], io, {}, run), 0);
        assert.equal(io.stdout, "");
        assert.ok(fs.lstatSync(path.join(d, "dev.json")).isSymbolicLink());
        assert.equal(fs.readFileSync(path.join(d, "real.json"), "utf8"), EMPTY);
    });

    test("--help says that `-` is stdout", async () => {
        const io = capture();
        assert.equal(await renderCli(["--help"], io), 0);
        assert.match(io.stdout, /--out <file> .*- is stdout/);
    });
});
