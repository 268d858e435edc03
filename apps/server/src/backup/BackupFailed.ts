/** A dump or restore that could not be made, with the one line an operator needs. */
import { Effect, Schema } from "effect"

export class BackupFailed extends Schema.TaggedError<BackupFailed>()("BackupFailed", {
  message: Schema.String
}) {}

const describe = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

export const failure = (what: string) => (cause: unknown): BackupFailed =>
  new BackupFailed({ message: `${what}: ${describe(cause)}` })

/** A promise of the file system or git, failing as BackupFailed with `what` in front of its cause. */
export const attempt = <A>(what: string, run: () => Promise<A>): Effect.Effect<A, BackupFailed> =>
  Effect.tryPromise({ try: run, catch: failure(what) })
