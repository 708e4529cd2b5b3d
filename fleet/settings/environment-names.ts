import type { ConfigProblem } from "../../config/model/errors";
import { environmentName } from "./grammar";
import { fleetKey } from "./project";

/**
 * An environment's name is its Stack's name (and its ServiceAccount's), so it must be one the
 * API server takes for a Stack: the CRD's 42-character rule included. Read from the names alone,
 * so a long name shows beside any other problem of the file.
 */
export function environmentNameProblems(names: readonly string[]): ConfigProblem[] {
    return names.flatMap((name) => {
        const why = environmentName.check(name);
        return why === undefined
            ? []
            : [
                  {
                      key: fleetKey("environments", [name]),
                      message: `the name must be ${environmentName.what}: ${why}`,
                      given: name,
                      allowed: environmentName.allowed,
                  },
              ];
    });
}
