/**
 * Loaded first by `npm test` (`--import`): turns on Node's compile cache for the test process
 * and, through NODE_COMPILE_CACHE, for every process it starts (the program-run children, the
 * spawned commands and their npm). Each of them compiles the same large modules (the Pulumi SDK,
 * TypeScript, which the SDK's closure serialization loads, tsx's output of this repository);
 * with V8's cached code from the run before, a `render` costs about 1.3 s less CPU (4.9 s
 * against 3.6 s). The cache is checked against each file's source, so it only saves work. The
 * directory is Node's own default (npm uses it too).
 */
import * as module from "node:module";
import * as os from "node:os";
import * as path from "node:path";

process.env.NODE_COMPILE_CACHE ??= path.join(os.tmpdir(), "node-compile-cache");
module.enableCompileCache?.(process.env.NODE_COMPILE_CACHE);
