import type { ConfigProblem } from "../../config/model/errors";
import type { FleetConfig } from "./schema";

/** A rule across the fleet's environments: its problems by their full keys. */
export type FleetRule = (fleet: FleetConfig) => ConfigProblem[];
