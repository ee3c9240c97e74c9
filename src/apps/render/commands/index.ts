// Commands: what a posted action runs before the screens resolve.
export { MAX_COMMAND_STEPS, runAction, type CommandWorld } from "./run";
export type { ActionsRequest, CommandServices, InlineOutcome, JobRequest, PrincipalOp, PrincipalWrite, UploadPreview, UploadSlot } from "./services";
