/**
 * One side of a plan diff, in a process of its own whose working directory is that side's
 * program directory: started with the node arguments Pulumi.yaml gives the language host, as
 * `pulumi preview` starts the program. tsx then compiles the program with that directory's own
 * tsconfig.json, as Pulumi does: a program compiled under another directory's tsconfig (or
 * none) serialises its dynamic providers differently, and every one of them would show as
 * changed.
 */
import { renderAssumingSecrets } from "../lib/assume-secrets";
import { fromRecorded } from "../lib/policy-resources";
import type { ProgramRun } from "../lib/mock-engine";
import { withoutSourceMaps } from "../lib/source-maps";
import type { SideAnswer, SideRequest } from "./side-protocol";

type Render = typeof import("../lib/render");

async function answer(request: SideRequest): Promise<SideAnswer> {
    const render: Render = await withoutSourceMaps(() => import("../lib/render"));
    try {
        const { runProgram } = await import("../lib/mock-engine");
        let run: ProgramRun | undefined;
        const keep: typeof runProgram = async (...args) => (run = await runProgram(...args));
        const { rendered, assumed } = await renderAssumingSecrets(render, { ...request, run: keep }, request.autoAssume);
        if (!request.policies || run === undefined) return { rendered, assumed };
        const [{ runPack }, { POLICIES }] = await Promise.all([
            import("../../policies/lib/run-offline"),
            import("../../policies/rules/all"),
        ]);
        return { rendered, assumed, violations: await runPack(POLICIES, run.resources.map(fromRecorded)) };
    } catch (error) {
        return { error: render.programErrorText(error) };
    }
}

process.once("message", (request: SideRequest) => {
    void answer(request).then((a) => process.send!(a, () => process.exit(0)));
});
