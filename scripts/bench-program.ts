/**
 * How long the program takes to evaluate: the real program under Pulumi's mocks with the
 * dev stack's config. Prints the first (cold) run, which includes loading the SDKs, and the
 * warm runs. `npm run bench`.
 */
import { performance } from "node:perf_hooks";
import { devConfig, runProgram } from "../test/support/harness";

async function main() {
    const runs = Number(process.argv[2] ?? 10);
    const { config, secretKeys } = devConfig();
    const times: number[] = [];
    let resources = 0;
    let firstDoneAt = 0;
    for (let i = 0; i <= runs; i++) {
        const start = performance.now();
        // A stack name per run: the harness caches runs by their inputs.
        const run = await runProgram(config, secretKeys, `bench-${i}`);
        times.push(performance.now() - start);
        if (i === 0) firstDoneAt = performance.now();
        resources = run.resources.length;
    }
    const [cold, ...warm] = times;
    warm.sort((a, b) => a - b);
    const mean = warm.reduce((a, b) => a + b, 0) / warm.length;
    const fmt = (ms: number) => `${ms.toFixed(0)} ms`;
    console.log(`resources declared: ${resources}`);
    console.log(`cold: ${fmt(firstDoneAt)} from process start to the first evaluation's end, ${fmt(cold)} of it in the program`);
    console.log(`warm evaluation over ${warm.length} runs: mean ${fmt(mean)}, min ${fmt(warm[0])}, median ${fmt(warm[Math.floor(warm.length / 2)])}, max ${fmt(warm[warm.length - 1])}`);
}

main().catch((err) => {
    console.error(err);
    process.exit(1);
});
