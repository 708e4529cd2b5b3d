import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isRead, templateReads } from "../scripts/parity/template-reads";

/** The reads of templates as `path` (tested or navigated) and `path *` (read whole), sorted. */
function reads(...texts: string[]): string[] {
    return [...new Set(templateReads(texts).map((r) => r.path.join(".") + (r.whole ? " *" : "")))].sort();
}

describe("the Go template reader (which value paths a chart reads)", () => {
    test("a printed field is read whole; an `if` only tests its path", () => {
        assert.deepEqual(reads("{{ if .Values.api.enabled }}{{ .Values.api.image.tag | quote }}{{ end }}"), [
            "api.enabled",
            "api.image.tag *",
        ]);
    });

    test("`with` and `range` move the dot; a range variable is each entry", () => {
        const t = `{{- with .Values.api.podAnnotations }}{{ toYaml . }}{{ end }}
{{- range $k, $v := .Values.api.env }}{{ $k }}: {{ $v | quote }}{{ end }}`;
        assert.deepEqual(reads(t), ["api.env", "api.env.* *", "api.podAnnotations", "api.podAnnotations *"]);
    });

    test("variables, `default`, `dig`, `index` and `(expr).field` keep the path", () => {
        const t = `{{- $tls := .Values.router.tls | default dict -}}{{ $tls.secretName }}
{{ dig "a" "b" "fallback" .Values }}{{ index .Values "c" "d" }}{{ ((.Values.e).f) }}`;
        assert.deepEqual(reads(t), ["a.b *", "c.d *", "e.f *", "router.tls.secretName *"]);
    });

    test("an included template reads through the argument it is given, a dict's entries included", () => {
        const helpers = `{{- define "image" -}}{{ .image.registry }}/{{ .image.repository }}{{- end -}}`;
        const t = `{{ include "image" (dict "image" .Values.api.image "name" "api") }}`;
        assert.deepEqual(reads(helpers, t), ["api.image.registry *", "api.image.repository *"]);
    });

    test("ranging over a list of dicts reads every item's values", () => {
        const t = `{{- range $m := list (dict "v" .Values.cp.dcgm) (dict "v" .Values.cp.worker) }}{{ (get $m "v").port }}{{ end }}`;
        assert.deepEqual(reads(t), ["cp.dcgm", "cp.dcgm.port *", "cp.worker", "cp.worker.port *"]);
    });

    test("isRead: under a path read whole, or the very path tested; never a sibling", () => {
        const r = templateReads(["{{ toYaml .Values.api.env }}{{ if .Values.api.image }}{{ end }}"]);
        assert.equal(isRead(r, ["api", "env", "FOO"]), true);
        assert.equal(isRead(r, ["api", "image"]), true);
        assert.equal(isRead(r, ["api", "image", "tag"]), false, "a tested map is not read below");
        assert.equal(isRead(r, ["api", "natsWorkerAuth"]), false);
    });

    test("comments, raw strings and trim markers are not mistaken for actions", () => {
        assert.deepEqual(reads("{{/* {{ .Values.no }} */}}{{- `{{ .Values.raw }}` -}}{{- .Values.yes -}}"), ["yes *"]);
    });
});
