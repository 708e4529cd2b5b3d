/**
 * What plan-diff and the process that renders one side of it send each other. A module without
 * side effects, loaded by both.
 */
import type { Violation } from "../../policies/lib/run-offline";
import type { RenderedStack } from "../lib/rendered";

/** One side to render: the program in `root` (the child's working directory) with a stack file. */
export interface SideRequest {
    readonly root: string;
    readonly stack: string;
    readonly assumeSecrets: readonly string[];
    readonly autoAssume: boolean;
    /** Run the policy pack on the render too (the working tree's side). */
    readonly policies: boolean;
}

export type SideAnswer =
    | {
          /** null: no stack file on this side (a stack added or removed); side.ts answers that itself. */
          readonly rendered: RenderedStack | null;
          readonly assumed: readonly string[];
          readonly violations?: readonly Violation[];
      }
    | { readonly error: string };
