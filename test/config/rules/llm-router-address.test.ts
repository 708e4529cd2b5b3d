import { test } from "node:test";
import { assertProblems, devRaw, parse } from "../../support/raw-config";
import { CP } from "../support";

test("the LLM request router address: DNS-or-IPv4:port or [IPv6]:port", () => {
    const raw = (address: string, enabled = true) =>
        devRaw({ controlPlane: { addons: { llm: { enabled } }, global: { workerEndpoints: { llmRequestRouterAddress: address } } } });
    assertProblems(raw("router:99999"), [
        {
            key: `${CP}.global.workerEndpoints.llmRequestRouterAddress`,
            message: "global.workerEndpoints.llmRequestRouterAddress must use DNS-or-IPv4:port or [IPv6]:port with port 1-65535",
            given: "router:99999",
        },
    ]);
    parse(raw("[fd00::1]:50071"));
    parse(raw("router:99999", false));
});
