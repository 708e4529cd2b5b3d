import type { CheckResult } from "../health/check-result";
import type { InstalledRelease } from "../health/helm-releases";
import { testHooks } from "./helm-tests";
import { SMOKE_RECORD, type SmokeRecord } from "./record";

const RERUN = "pulumi up runs it after every install or upgrade of a release";

/**
 * What `npm run status` says of the last smoke run (`checks.smoke`): one `helm test <release>`
 * line per installed release with test hooks, and one `platform smoke`. A release whose current
 * revision the last run did not test is inconclusive, never a pass; so is a run never recorded.
 */
export function smokeStatus(
    record: SmokeRecord | undefined,
    installed: readonly InstalledRelease[],
    expect: { readonly helmTests: boolean; readonly platform: boolean },
): CheckResult[] {
    const where = `ConfigMap ${SMOKE_RECORD.namespace}/${SMOKE_RECORD.name}`;
    const results: CheckResult[] = [];
    if (expect.helmTests) {
        for (const release of installed.filter((r) => testHooks(r).length > 0)) {
            const name = `helm test ${release.name}`;
            const runs = (record?.helmTests ?? []).filter((r) => r.release === release.name && r.namespace === release.namespace);
            const tested = runs.filter((r) => r.revision === release.revision);
            if (tested.length === 0) {
                const earlier = runs.length > 0 ? `; the last run tested revision ${runs[0].revision}` : "";
                results.push({
                    name,
                    ok: false,
                    inconclusive: true,
                    detail: `revision ${release.revision} has not been tested${earlier}`,
                    fix: RERUN,
                });
                continue;
            }
            const failedRun = tested.find((r) => r.phase === "Failed");
            results.push(
                failedRun
                    ? {
                          name,
                          ok: false,
                          detail: `${failedRun.kind} ${failedRun.namespace}/${failedRun.hook} failed at ${failedRun.completedAt}: ${failedRun.detail}`,
                          fix: `kubectl -n ${failedRun.namespace} describe ${failedRun.kind.toLowerCase()} ${failedRun.hook}; fix the cause, then pulumi up runs it again`,
                      }
                    : {
                          name,
                          ok: true,
                          detail: `revision ${release.revision}: ${tested.map((r) => `${r.hook} ${r.detail}`).join("; ")} (${tested[0].completedAt})`,
                          fix: "",
                      },
            );
        }
    }
    if (expect.platform) {
        const run = record?.platform;
        results.push(
            !run
                ? { name: "platform smoke", ok: false, inconclusive: true, detail: `no run recorded in ${where}`, fix: RERUN }
                : run.ok
                  ? {
                        name: "platform smoke",
                        ok: true,
                        detail: `passed at ${run.completedAt}: ${run.steps.map((s) => s.step).join(", ")}`,
                        fix: "",
                    }
                  : {
                        name: "platform smoke",
                        ok: false,
                        detail: `failed at ${run.completedAt}: ${run.steps
                            .filter((s) => !s.ok)
                            .map((s) => `${s.step}: ${s.detail}`)
                            .join("; ")}`,
                        fix: "fix the cause (docs/errors.md, Smoke check), then pulumi up runs it again",
                    },
        );
    }
    return results;
}
