import type { ConfigProblem } from "../model/errors";
import type { Settings } from "../model/keys";
import type { ControlPlaneConfig } from "../model/schema";
import type { ComputePlaneConfig } from "../model/compute-plane-schema";

/** A problem under `controlPlane`, by its path relative to it. */
export type Problem = Omit<ConfigProblem, "key"> & { path: string };

/** A rule over `controlPlane` alone: its problems by their paths under it. */
export type ControlPlaneRule = (cp: ControlPlaneConfig) => Problem[];

/** A rule over the settings as a whole: its problems by their full keys. */
export type SettingsRule = (settings: Settings, releaseNames: readonly string[]) => ConfigProblem[];

/** A rule over one compute plane: `key` makes the full key of a path under `computePlanes[i]`. */
export type ComputePlaneRule = (plane: ComputePlaneConfig, key: (path: string) => string, settings: Settings) => ConfigProblem[];
