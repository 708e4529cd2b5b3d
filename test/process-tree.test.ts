import * as assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { sampleTree } from "./e2e/process-tree";

test(
    "a command's tree: its children's and grandchildren's memory add up, and their CPU time counts",
    { skip: process.platform !== "linux" },
    async () => {
        // A shell (the CLI's place) starting two Node.js processes that hold 120 MB and 80 MB, one of them spinning.
        const hold = (mb: number, spin: boolean) =>
            `node -e 'const b = Buffer.alloc(${mb}e6, 1); const t = Date.now(); ${spin ? "while (Date.now() - t < 1200);" : "setTimeout(() => b, 1200);"}'`;
        const child = spawn("bash", ["-c", `${hold(120, true)} & ${hold(80, false)} & wait`], { stdio: "ignore" });
        const sampler = sampleTree(child.pid!, 50)!;
        await new Promise((resolve) => child.on("close", resolve));
        const usage = sampler.stop();
        assert.ok(usage.peakRssBytes >= 200e6, `peak ${usage.peakRssBytes} bytes: both grandchildren at once`);
        assert.ok(usage.peakRssBytes < 1e9, `peak ${usage.peakRssBytes} bytes: nothing outside the tree`);
        assert.ok(usage.cpuSeconds >= 0.3, `${usage.cpuSeconds} s of CPU: the spinning grandchild's`);
    },
);
