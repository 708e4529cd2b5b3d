import * as fs from "node:fs";
import * as path from "node:path";
import { BENCH_RELEASE_LABEL } from "./delayed-kubelet";

/** A Helm hook Job of a release, as the real chart runs one (its migrations, its bootstrap). */
export interface BenchHook {
    readonly release: string;
    readonly event: "pre-install" | "post-install";
}

const labels = `${BENCH_RELEASE_LABEL}: {{ .Release.Name | quote }}`;

/** One Deployment per release: what Helm's wait waits for, ready when the benchmark's kubelet says so. */
const WORKLOAD = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: bench-{{ .Release.Name }}
  namespace: {{ .Release.Namespace }}
spec:
  replicas: 1
  selector:
    matchLabels:
      ${labels}
  template:
    metadata:
      labels:
        ${labels}
    spec:
      containers:
        - name: app
          image: bench.invalid/app:1
`;

const hookJob = (event: string) => `apiVersion: batch/v1
kind: Job
metadata:
  name: bench-{{ .Release.Name }}-${event}
  namespace: {{ .Release.Namespace }}
  annotations:
    helm.sh/hook: ${event}
    helm.sh/hook-delete-policy: before-hook-creation
spec:
  backoffLimit: 0
  template:
    metadata:
      labels:
        ${labels}
    spec:
      restartPolicy: Never
      containers:
        - name: hook
          image: bench.invalid/hook:1
`;

/**
 * The fixture charts (`from`, one directory per chart) copied to `to`, each with a Deployment
 * per release and, for the releases `hooks` names, a hook Job: the same charts for every tool
 * the benchmark runs, so only the order differs. The hook is rendered for the release that
 * `hooks` names only (a chart may serve several releases).
 */
export function benchCharts(from: string, to: string, hooks: readonly BenchHook[]): string[] {
    fs.cpSync(from, to, { recursive: true });
    const charts = fs.readdirSync(to).filter((d) => fs.existsSync(path.join(to, d, "Chart.yaml")));
    for (const chart of charts) {
        const templates = path.join(to, chart, "templates");
        fs.mkdirSync(templates, { recursive: true });
        fs.writeFileSync(path.join(templates, "bench-workload.yaml"), WORKLOAD);
        for (const event of ["pre-install", "post-install"] as const) {
            const names = hooks.filter((h) => h.event === event).map((h) => JSON.stringify(h.release));
            fs.writeFileSync(
                path.join(templates, `bench-${event}.yaml`),
                `{{- if has .Release.Name (list ${names.join(" ")}) }}\n${hookJob(event)}{{- end }}\n`,
            );
        }
    }
    return charts;
}
