import type { RecordedResource } from "./mock-engine";
import type { FixtureResource } from "../../policies/lib/run-offline";

/** The URN of an engine provider reference, `<urn>::<id>`; undefined for the default provider. */
function providerUrn(reference: string): string | undefined {
    const cut = reference.lastIndexOf("::");
    return cut > 0 ? reference.slice(0, cut) : undefined;
}

/**
 * A resource the real program registered under mocks, as the engine would show it to the pack:
 * its inputs (secrets unwrapped, as the analyzer does), provider, parent and dependencies.
 */
export function fromRecorded(resource: RecordedResource): FixtureResource {
    return { ...fromRecordedWire(resource), props: resource.inputs };
}

/** The same with the inputs in the wire format, secret envelopes kept: for the served pack. */
export function fromRecordedWire(resource: RecordedResource): FixtureResource {
    const provider = providerUrn(resource.provider);
    return {
        type: resource.type,
        name: resource.name,
        urn: resource.urn,
        props: resource.rawInputs,
        ...(provider ? { provider } : {}),
        ...(resource.parent ? { parent: resource.parent } : {}),
        dependencies: resource.dependencies,
    };
}
