/**
 * The one pool of git processes of a server process (review 4b30e64, finding 17): smart HTTP and
 * SSH run their `upload-pack`, `receive-pack` and `upload-archive` in its slots, so that together
 * they never run more than `KILN_GIT_MAX_PROCESSES` gits.
 */
import { Context, Effect, Layer, Option } from "effect"
import { defaultMaxGitProcesses, GitProcessSlots } from "@kiln/git"
import { KilnConfig } from "../config/KilnConfig.ts"

export class GitProcessPool extends Context.Service<GitProcessPool, GitProcessSlots>()("@kiln/server/git/GitProcessPool") {}

/** KILN_GIT_MAX_PROCESSES; an embedding without a KilnConfig gets the default for its cores. */
export const layer = Layer.effect(
  GitProcessPool,
  Effect.map(Effect.serviceOption(KilnConfig), (config) =>
    new GitProcessSlots(Option.match(config, { onNone: () => defaultMaxGitProcesses(), onSome: (settings) => settings.gitMaxProcesses })))
)
