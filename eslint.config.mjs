// typescript-eslint's recommended rules, without type information so the lint stays fast.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import { noImportCycle } from "./scripts/lint/no-import-cycle.mjs";

/** What lib/ may not import: it talks to running systems and declares nothing. */
const LIB_RESTRICTED = [
    { group: ["@pulumi/*"], message: "lib/ talks to running systems and declares nothing: no @pulumi/* here." },
    { group: ["**/components/**"], message: "lib/ imports nothing from components/ (components/ imports lib/)." },
];

export default tseslint.config(
    { ignores: ["**/node_modules/**", "bin/**", "test/e2e/charts/**", "test/fixtures/**"] },
    js.configs.recommended,
    ...tseslint.configs.recommended,
    {
        rules: {
            // `_name` marks a parameter an interface requires but this implementation does not use.
            "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
        },
    },
    {
        plugins: { local: { rules: { "no-import-cycle": noImportCycle } } },
        rules: { "local/no-import-cycle": "error" },
    },
    {
        // lib/ talks to running systems (OpenBao, NATS, Cassandra, NVCF's APIs, Kubernetes, health,
        // drift, smoke) for the dynamic resources and the commands alike; what Pulumi declares stays
        // in components/, which imports lib/, never the reverse.
        files: ["lib/**/*.ts"],
        rules: { "no-restricted-imports": ["error", { patterns: LIB_RESTRICTED }] },
    },
    {
        // Nor the stack's settings, except in lib/cluster-access/, which decides each cluster's
        // route from the Settings (route.ts) and names the project's secrets (reach.ts).
        files: ["lib/**/*.ts"],
        ignores: ["lib/cluster-access/**"],
        rules: {
            "no-restricted-imports": [
                "error",
                {
                    patterns: [
                        ...LIB_RESTRICTED,
                        { group: ["**/config/**"], message: "lib/ imports nothing from config/: its caller passes what it needs." },
                    ],
                },
            ],
        },
    },
    {
        // A provider's code is loaded by the engine's provider host when a resource's operation
        // runs (components/resources/provider-reference.ts); loading the Pulumi SDK there would
        // cost seconds. Types are free.
        files: ["components/providers/**/*.ts"],
        rules: {
            "@typescript-eslint/no-restricted-imports": [
                "error",
                {
                    patterns: [
                        {
                            group: ["@pulumi/*"],
                            allowTypeImports: true,
                            message: "a provider runs in the engine's provider host: import type only from @pulumi/*.",
                        },
                    ],
                },
            ],
        },
    },
    {
        // Tests read JSON answers (Kubernetes objects, Helm release records, engine events) whose
        // shape their assertions check, and probe untyped SDK internals and CommonJS scripts with
        // require; the program itself stays free of both.
        files: ["test/**/*.ts", "policies/test/**/*.ts"],
        rules: { "@typescript-eslint/no-explicit-any": "off", "@typescript-eslint/no-require-imports": "off" },
    },
    {
        files: ["**/*.cjs"],
        languageOptions: {
            sourceType: "commonjs",
            globals: { require: "readonly", process: "readonly", module: "writable", console: "readonly", __dirname: "readonly" },
        },
        rules: { "@typescript-eslint/no-require-imports": "off" },
    },
);
