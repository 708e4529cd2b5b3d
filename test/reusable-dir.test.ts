/**
 * scripts/lib/reusable-dir.ts: the same temporary path each time, never shared with a live
 * process, taken over from one that ended.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, test } from "node:test";
import { takeReusableDir } from "../scripts/lib/reusable-dir";

/** A name of this process's own, so that no other run of the suite takes it. */
const nameFor = (what: string) => `nvcf-reusable-dir-test-${what}-${process.pid}`;

/** The pid of a process that has ended. */
function endedPid(): number {
    const pid = spawnSync(process.execPath, ["-p", "process.pid"], { encoding: "utf8" }).stdout.trim();
    return Number(pid);
}

describe("a reusable temporary directory", () => {
    test("is <tmp>/<name>, holds this process's pid, and is gone after release", () => {
        const taken = takeReusableDir(nameFor("plain"));
        assert.equal(taken.dir, path.join(os.tmpdir(), nameFor("plain")));
        assert.equal(fs.readFileSync(path.join(taken.dir, ".owner"), "utf8"), String(process.pid));
        taken.release();
        assert.equal(fs.existsSync(taken.dir), false);
        // Released: the next take gets the same path.
        const again = takeReusableDir(nameFor("plain"));
        assert.equal(again.dir, taken.dir);
        again.release();
    });

    test("one a live process holds is not shared: the second taker gets a directory of its own", () => {
        const first = takeReusableDir(nameFor("held"));
        const second = takeReusableDir(nameFor("held"));
        try {
            assert.notEqual(second.dir, first.dir);
            assert.ok(path.basename(second.dir).startsWith(`${nameFor("held")}-`), second.dir);
            assert.ok(fs.existsSync(first.dir));
        } finally {
            second.release();
            first.release();
        }
    });

    test("one left by a process that ended is emptied and taken over", () => {
        const dir = path.join(os.tmpdir(), nameFor("left"));
        fs.mkdirSync(path.join(dir, "tree"), { recursive: true });
        fs.writeFileSync(path.join(dir, ".owner"), String(endedPid()));
        const taken = takeReusableDir(nameFor("left"));
        try {
            assert.equal(taken.dir, dir);
            assert.deepEqual(fs.readdirSync(dir), [".owner"]);
        } finally {
            taken.release();
        }
    });

    test("one without an owner is someone's that just made it, unless it is over a minute old", () => {
        const dir = path.join(os.tmpdir(), nameFor("unowned"));
        fs.mkdirSync(dir);
        try {
            const fresh = takeReusableDir(nameFor("unowned"));
            assert.notEqual(fresh.dir, dir);
            fresh.release();
            const old = new Date(Date.now() - 120_000);
            fs.utimesSync(dir, old, old);
            const taken = takeReusableDir(nameFor("unowned"));
            assert.equal(taken.dir, dir);
            taken.release();
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});
