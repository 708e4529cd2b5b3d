import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CATALOG, OPENBAO, serviceAddress } from "../components/catalog/control-plane";
import { UI_COMPONENTS } from "../components/catalog/control-plane-values/addons";
import { controlPlaneSchema } from "../config/model/schema";

const cp = controlPlaneSchema.parse({ observability: { namespace: "metrics" } });

describe("in-cluster endpoints come from the catalog", () => {
    test("a release's Service address uses its namespace, Service name and port", () => {
        assert.equal(serviceAddress(OPENBAO.release, cp), "openbao-server.vault-system.svc.cluster.local:8200");
        assert.equal(serviceAddress("victoria-metrics", cp), "vmsingle.metrics.svc.cluster.local:8428");
        assert.equal(serviceAddress("sis", cp), "api.sis.svc.cluster.local:8080");
    });
    test("a release without a Service, or an unknown one, is a programming error", () => {
        assert.throws(() => serviceAddress("cassandra", cp), /release cassandra has no Service in the catalog/);
        assert.throws(() => serviceAddress("no-such-release", cp), /no release no-such-release in the catalog/);
    });
    test("the UI's health list and the catalog's health checks name the same releases", () => {
        const withHealth = CATALOG.filter((e) => e.health).map((e) => e.name);
        assert.deepEqual([...UI_COMPONENTS].sort(), withHealth.sort());
    });
    test("every entry has the one entry form: all fields given, no positional helper", () => {
        for (const entry of CATALOG) {
            for (const key of ["name", "namespace", "chart", "source", "phase", "needs", "enabled", "values"] as const) {
                assert.notEqual(entry[key], undefined, `${entry.name}.${key}`);
            }
        }
    });
});
