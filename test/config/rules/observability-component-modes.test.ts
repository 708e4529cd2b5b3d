import { test } from "node:test";
import { assertProblems, devRaw, parse } from "../../support/raw-config";
import { CP } from "../support";

test("the observability components' modes: the bundle's rules between them", () => {
    const components = (modes: Record<string, string>) =>
        devRaw({
            controlPlane: {
                observability: { components: Object.fromEntries(Object.entries(modes).map(([c, mode]) => [c, { mode }])) },
            },
        });
    parse(components({ prometheusOperatorCrds: "existing", otelOperator: "existing" }));
    parse(components({ collector: "disabled", targetAllocator: "disabled", discoveryRbac: "disabled" }));
    assertProblems(components({ otelOperator: "disabled", prometheusOperatorCrds: "disabled" }), [
        {
            key: `${CP}.observability.components.otelOperator.mode`,
            message:
                "observability.components.otelOperator.mode cannot be disabled when the collector is installed; use existing for a customer-managed operator",
        },
        {
            key: `${CP}.observability.components.prometheusOperatorCrds.mode`,
            message:
                "observability.components.prometheusOperatorCrds.mode cannot be disabled for an enabled profile because default monitors require the APIs; use existing for customer-managed CRDs",
        },
    ]);
    assertProblems(components({ collector: "existing" }), [
        {
            key: `${CP}.observability.components.targetAllocator.mode`,
            message: "observability.components.targetAllocator.mode=install requires observability.components.collector.mode=install",
        },
        {
            key: `${CP}.observability.components.discoveryRbac.mode`,
            message: "observability.components.discoveryRbac.mode=install requires observability.components.collector.mode=install",
        },
    ]);
    assertProblems(devRaw({ controlPlane: { metricsBackend: { mode: "disabled" } } }), [
        {
            key: `${CP}.metricsBackend.mode`,
            message: "metricsBackend.mode cannot be disabled when the collector is installed; use existing for an external backend",
        },
    ]);
    // Without a profile the observability bundle is not rendered at all.
    parse(devRaw({ controlPlane: { observability: { profile: "disabled", components: { collector: { mode: "existing" } } } } }));
});
