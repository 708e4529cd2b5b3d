/**
 * OpenBao's upgrade mechanics, for `pulumi up` (components/providers/openbao-rollout.ts,
 * openbao-jwt-baseline.ts) and for any command that upgrades in stages: the member-by-member
 * rollout of its `OnDelete` StatefulSet and the JWT mount checks. docs/internals.md describes the API.
 */
export { openBaoMembers, type TokenSource } from "./access";
export { JWT_PLUGIN } from "./contract";
export { captureJwtBaseline, mountProblems, verifyJwtMounts, type JwtBaseline, type JwtMount, type JwtMountReport } from "./jwt-mounts";
export { MemberAnswerError, type MemberEndpoint, type MemberHealth, type OpenBaoMembers } from "./members";
export { leaderOf, type RolloutTarget } from "./leader";
export { memberRevisions, rollOut, type MemberRevisions, type RolloutOptions, type RolloutReport } from "./rollout";
