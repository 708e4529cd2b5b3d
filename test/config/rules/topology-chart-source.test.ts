import { test } from "node:test";
import { assertProblems, devRaw, parse } from "../../support/raw-config";
import { kai, P, plane } from "../support";

test("the topology chart is in no registry: a directory that holds it, or a repository it was pushed to, is required", () => {
    const on = { topologyAwareScheduling: { enabled: true } };
    assertProblems(devRaw({ values: { computePlanes: [plane({ addons: { ...kai, ...on } })] } }), [
        {
            key: `${P}:computePlanes[0].addons.topologyAwareScheduling.chartsPath`,
            message:
                "the nvcf-cluster-topology chart ships only inside NVIDIA's bundle (deploy/stacks/nvcf-compute-plane/charts), in no chart registry",
            given: "unset",
            allowed:
                "the directory holding the bundle's charts (or global.helm.sources.path, when it holds them all), or " +
                "addons.topologyAwareScheduling.repository: a chart repository you pushed it to",
        },
    ]);
    const pushed = { topologyAwareScheduling: { enabled: true, repository: "oci://registry.example.com/nvcf-charts" } };
    parse(devRaw({ values: { computePlanes: [plane({ addons: { ...kai, ...pushed } })] } }));
    parse(devRaw({ values: { computePlanes: [plane({ addons: { ...kai, ...on }, helmSources: { path: "/srv/nvcf/charts" } })] } }));
});
