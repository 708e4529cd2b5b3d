/**
 * How long the program takes to evaluate: the real program under Pulumi's mocks with the
 * dev stack's config. Prints what a render of the dev stack costs (SDK load included) and the
 * warm runs. `npm run bench`.
 */
import { performance } from "node:perf_hooks";
import * as path from "node:path";
import { devConfig } from "../lib/dev-stack";
import { runProgram } from "../lib/mock-engine";
import { formatJson } from "../render/format-json";
import { renderStack } from "../lib/render";

async function main() {
    const runs = Number(process.argv[2] ?? 10);
    // What `npm run render -- --stack dev` costs, SDK load included: it is the first run here.
    const renderStart = performance.now();
    const rendered = await renderStack({ root: path.resolve(__dirname, "..", ".."), stack: "dev", assumeSecrets: ["ngcApiKey"] });
    formatJson(rendered);
    const renderMs = performance.now() - renderStart;
    const renderDoneAt = performance.now();
    const { config, secretKeys } = devConfig();
    const times: number[] = [];
    let resources = 0;
    for (let i = 0; i <= runs; i++) {
        const start = performance.now();
        // A stack name per run: the mock engine caches runs by their inputs.
        const run = await runProgram(config, secretKeys, `bench-${i}`);
        times.push(performance.now() - start);
        resources = run.resources.length;
    }
    // The first run after the render still warms the JIT up; the figures are the others'.
    const warm = times.slice(1);
    warm.sort((a, b) => a - b);
    const mean = warm.reduce((a, b) => a + b, 0) / warm.length;
    const fmt = (ms: number) => `${ms.toFixed(0)} ms`;
    console.log(`resources declared: ${resources}`);
    console.log(
        `render of the dev stack (npm run render): ${fmt(renderMs)} for the first evaluation and the JSON, ` +
            `${fmt(renderDoneAt)} from process start (loading the SDKs)`,
    );
    console.log(
        `warm evaluation over ${warm.length} runs: mean ${fmt(mean)}, min ${fmt(warm[0])}, median ${fmt(warm[Math.floor(warm.length / 2)])}, max ${fmt(warm[warm.length - 1])}`,
    );
}

main().catch((err) => {
    console.error(err);
    process.exit(1);
});
