// typescript-eslint's recommended rules, without type information so the lint stays fast.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import { noImportCycle } from "./scripts/lint/no-import-cycle.mjs";

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
