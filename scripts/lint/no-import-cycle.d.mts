import type { Rule } from "eslint";

export declare const noImportCycle: Rule.RuleModule;

/** The repository files `file` (an absolute path) imports, in any form, as absolute paths. */
export declare function importsOf(file: string): string[];
