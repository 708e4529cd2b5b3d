import type { ConfigProblem } from "../../config/model/errors";
import { namespaceCreatedOnce } from "./namespace-created-once";
import { oneEnvironmentPerStack } from "./one-environment-per-stack";
import { postgresStackNames } from "./postgres-stack-names";
import { prerequisiteCycles } from "./prerequisite-cycles";
import { prerequisitesKnown } from "./prerequisites-known";
import type { FleetRule } from "./rule";
import type { FleetConfig } from "./schema";

/** Every rule across environments, one a file, in the order their problems are listed. */
const RULES: readonly FleetRule[] = [
    prerequisitesKnown,
    prerequisiteCycles,
    namespaceCreatedOnce,
    oneEnvironmentPerStack,
    postgresStackNames,
];

export function fleetRuleProblems(fleet: FleetConfig): ConfigProblem[] {
    return RULES.flatMap((rule) => rule(fleet));
}
