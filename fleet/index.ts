import { Namespaces } from "../components/kubernetes/namespaces";
import { clusterProvider } from "../components/kubernetes/provider";
import { Environment } from "./components/environment";
import { Operator } from "./components/operator";
import { loadFleet } from "./settings/load";
import { OPERATOR_CHART } from "./settings/upstream";

/**
 * The fleet program: the fleet file is validated before anything is declared, then the operator
 * and, per environment, its ServiceAccount, bindings and Stack. The operator then runs each
 * environment's `pulumi up` on its own; this program only says what it runs (docs/fleets.md).
 */
export = function main() {
    const fleet = loadFleet();
    const provider = clusterProvider("fleet", fleet.cluster);
    // Every namespace the fleet creates, once, whoever shares it (the rules made them agree).
    const created = new Set<string>(fleet.operator.createNamespace ? [fleet.operator.namespace] : []);
    for (const env of Object.values(fleet.environments)) if (env.createNamespace) created.add(env.namespace);
    const namespaces = new Namespaces("fleet", { namespaces: [...created].sort().map((name) => ({ name })) }, { providers: [provider] });
    const namespaceOf = (name: string) => namespaces.byName[name]?.metadata.name ?? name;

    const operator = new Operator(
        "pulumi-kubernetes-operator",
        { namespace: namespaceOf(fleet.operator.namespace) },
        { providers: [provider] },
    );
    const environments = Object.entries(fleet.environments).map(([name, settings]) => ({
        name,
        env: new Environment(
            name,
            { settings, namespace: namespaceOf(settings.namespace), operator: operator.release },
            { providers: [provider] },
        ),
    }));
    return {
        operator: { namespace: fleet.operator.namespace, chart: OPERATOR_CHART.chart, version: OPERATOR_CHART.version },
        environments: Object.fromEntries(
            environments.map(({ name, env }) => [
                name,
                { namespace: env.stack.metadata.namespace, serviceAccount: env.serviceAccount.metadata.name },
            ]),
        ),
    };
};
