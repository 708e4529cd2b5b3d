// The dev stack runs now live with the mock engine; kept here for the tests that import them.
export { runDev, runDevExpectingError } from "../../scripts/lib/dev-stack";
