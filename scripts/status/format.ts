/** `npm run status`'s output: a table for people, JSON for machines. */
import { failed } from "../../lib/health/checks";
import { exitCode, type StatusReport } from "./run";

interface Row {
    readonly cluster: string;
    readonly check: string;
    readonly status: "ok" | "FAIL" | "SKIP" | "INCONCLUSIVE";
    readonly detail: string;
    readonly fix: string;
}

function rows(report: StatusReport): Row[] {
    return report.clusters.flatMap((c): Row[] => {
        const checks = c.checks.map((r): Row => ({
            cluster: c.cluster,
            check: r.name,
            status: r.ok ? "ok" : r.inconclusive ? "INCONCLUSIVE" : "FAIL",
            detail: r.detail,
            fix: r.fix,
        }));
        if (c.state === "skipped") return [{ cluster: c.cluster, check: "-", status: "SKIP", detail: c.reason ?? "", fix: "" }];
        // A kubeconfig that could not even be loaded leaves no check behind: the reason is the row.
        if (c.state === "unreachable" && checks.length === 0) {
            return [
                {
                    cluster: c.cluster,
                    check: "kubeconfig",
                    status: "FAIL",
                    detail: c.reason ?? "",
                    fix: "check --kubeconfig and --context",
                },
            ];
        }
        return checks;
    });
}

/** The fix a row shows: a failed or inconclusive check's, else none. */
function fixOf(r: Row): string {
    return r.status === "FAIL" || r.status === "INCONCLUSIVE" ? r.fix : "";
}

/**
 * The fix to print under each row ("" for none): each fix once. Rows that share one are mostly
 * next to each other (clusters reached through the same kubeconfig fail alike, so do releases
 * no smoke run has tested yet): it goes under the last of them, so it reads as theirs, and a fix
 * printed higher up is not printed again.
 */
function fixesUnder(rows: readonly Row[]): string[] {
    const printed = new Set<string>();
    return rows.map((r, i) => {
        const fix = fixOf(r);
        const sharedWithNext = i + 1 < rows.length && fixOf(rows[i + 1]) === fix;
        if (!fix || sharedWithNext || printed.has(fix)) return "";
        printed.add(fix);
        return fix;
    });
}

/**
 * A heading with the stack and the time, the table (cluster, check, ok/FAIL/SKIP, detail; a
 * failure's fix on the line below it, once: fixesUnder), and a summary line.
 */
export function formatTable(report: StatusReport): string {
    const all = rows(report);
    const head: Row = { cluster: "CLUSTER", check: "CHECK", status: "ok", detail: "DETAIL", fix: "" };
    const w1 = Math.max(...[head, ...all].map((r) => r.cluster.length));
    const w2 = Math.max(...[head, ...all].map((r) => r.check.length));
    const w3 = Math.max(6, ...all.map((r) => r.status.length));
    const line = (a: string, b: string, c: string, d: string) => `${a.padEnd(w1)}  ${b.padEnd(w2)}  ${c.padEnd(w3)}  ${d}`.trimEnd();
    const out = [`status of stack ${report.stack} at ${report.time}`, line("CLUSTER", "CHECK", "STATUS", "DETAIL")];
    const fixes = fixesUnder(all);
    all.forEach((r, i) => {
        out.push(line(r.cluster, r.check, r.status, r.detail));
        if (fixes[i]) out.push(line("", "", "", `fix: ${fixes[i]}`));
    });
    const checks = report.clusters.flatMap((c) => c.checks);
    const failures = checks.filter(failed).length;
    const unsure = checks.filter((r) => r.inconclusive).length;
    const skipped = report.clusters.filter((c) => c.state === "skipped").length;
    const unreachable = report.clusters.filter((c) => c.state === "unreachable").length;
    const parts = [
        `${checks.length} checks: ${checks.length - failures - unsure} ok, ${failures} failed${unsure ? `, ${unsure} inconclusive` : ""}`,
    ];
    if (unreachable) parts.push(`${unreachable} cluster${unreachable > 1 ? "s" : ""} unreachable`);
    if (skipped) parts.push(`${skipped} cluster${skipped > 1 ? "s" : ""} not checked`);
    out.push(`${parts.join("; ")} (exit ${exitCode(report)})`);
    return `${[...out, ...objectDetails(report)].join("\n")}\n`;
}

/** With `--drift`: under the table, each drifted object and its fields (path, recorded, live, who changed it). */
function objectDetails(report: StatusReport): string[] {
    const out: string[] = [];
    for (const c of report.clusters) {
        for (const r of c.objects ?? []) {
            if (r.drifted.length === 0) continue;
            out.push("", `${c.cluster}: release ${r.release} (${r.namespace}, revision ${r.revision})`);
            for (const o of r.drifted) {
                const name = `${o.kind} ${o.namespace ? `${o.namespace}/` : ""}${o.name}`;
                if (o.state === "missing")
                    out.push(`  ${name}: missing (deleted; who deleted it is not kept in the cluster, only in the API server's audit log)`);
                else if (o.state === "unknown") out.push(`  ${name}: not compared: ${o.detail ?? ""}`);
                else {
                    out.push(`  ${name}:`);
                    for (const f of o.fields) out.push(`    ${f.path}: recorded ${f.recorded}, live ${f.live}; ${f.changedBy}`);
                }
            }
        }
    }
    return out;
}

/** The report as JSON: pretty for one round, one line per round under --watch (JSON Lines). */
export function formatStatusJson(report: StatusReport, oneLine: boolean): string {
    const code = exitCode(report);
    const doc = { stack: report.stack, time: report.time, ok: code === 0, exitCode: code, clusters: report.clusters };
    return `${oneLine ? JSON.stringify(doc) : JSON.stringify(doc, null, 2)}\n`;
}
