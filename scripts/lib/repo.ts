import * as path from "node:path";

/** This repository's root: its program (index.ts), Pulumi.yaml and stack files. */
export const REPO_ROOT = path.resolve(__dirname, "..", "..");
