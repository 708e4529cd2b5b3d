import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { summary } from "./e2e/bench-figures";
import { installBenchCommandLine } from "./e2e/install-bench-cli";

const io = () => {
    let out = "";
    let err = "";
    return { io: { out: (s: string) => void (out += s), err: (s: string) => void (err += s) }, said: () => ({ out, err }) };
};

describe("npm run bench:install's runs and figures", () => {
    test("three runs of each side by default; --runs takes a whole number of at least 1", () => {
        const { io: a } = io();
        const line = installBenchCommandLine([], a, {});
        assert.ok(!("exit" in line));
        assert.equal(line.options.runs, 3);
        const five = installBenchCommandLine(["--runs", "5", "--no-fleet"], a, {});
        assert.ok(!("exit" in five));
        assert.deepEqual([five.options.runs, five.options.fleets], [5, []]);
        for (const bad of ["0", "1.5", "two"]) {
            const { io: b, said } = io();
            const refused = installBenchCommandLine(["--runs", bad], b, {});
            assert.deepEqual(refused, { exit: 2 });
            assert.match(said().err, new RegExp(`--runs must be a whole number of at least 1; given "${bad.replace(".", "\\.")}"`));
        }
    });

    test("the median of the runs, and their spread from the lowest to the highest", () => {
        assert.deepEqual(summary([98, 70, 75]), { median: 75, low: 70, high: 98 });
        assert.deepEqual(summary([4, 1, 3, 2]), { median: 2.5, low: 1, high: 4 });
        assert.throws(() => summary([]), /no runs/);
    });
});
