import { keyPath } from "../../config/model/errors";

/** The fleet project's name (fleet/Pulumi.yaml): the namespace of its config keys, `nvcf-fleet:<key>`. */
export const FLEET_PROJECT = "nvcf-fleet";

/** The full key of a place in the fleet file, as problems name it: `nvcf-fleet:environments.prod.stack`. */
export function fleetKey(key: string, path: readonly PropertyKey[] = []): string {
    return keyPath(`${FLEET_PROJECT}:${key}`, path);
}
