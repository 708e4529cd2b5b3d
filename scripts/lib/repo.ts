import * as path from "node:path";

/** This repository's root: its program (index.ts), Pulumi.yaml and stack files. */
export const REPO_ROOT = path.resolve(__dirname, "..", "..");

/** How this repository's commands start Node on its TypeScript, as package.json's scripts and Pulumi.yaml do. */
export const TSX_NODE_ARGS: readonly string[] = ["--import", "tsx"];
