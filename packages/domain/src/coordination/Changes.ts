/**
 * "This fact changed", for every process's caches. A write publishes inside its transaction, and
 * every process (the writer's included) hears of it once the transaction commits; a rolled-back
 * write is never heard of.
 *
 * A cache that may answer a changed fact must follow its topic: forget on `Changed`, and stay off
 * between `Lost` and the next `Listening` (changes published meanwhile are not heard). A new
 * subscriber hears `Listening` first when the process is listening already.
 */
import { Context, type Effect, type Scope } from "effect"

export type ChangeSignal =
  | { readonly _tag: "Changed"; readonly key: string }
  /** Hearing every change from now on (also after a reconnect: forget everything remembered). */
  | { readonly _tag: "Listening" }
  /** No longer hearing changes: stop answering from memory until `Listening`. */
  | { readonly _tag: "Lost" }

export class Changes extends Context.Service<Changes, {
  /** Announces that `key` of `topic` changed, inside the caller's transaction when there is one. */
  readonly publish: (topic: string, key: string) => Effect.Effect<void>
  /** Calls `onSignal` for the signals of `topic` until the scope closes. */
  readonly subscribe: (
    topic: string,
    onSignal: (signal: ChangeSignal) => Effect.Effect<void>
  ) => Effect.Effect<void, never, Scope.Scope>
}>()("@kiln/domain/coordination/Changes") {}
