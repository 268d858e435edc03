/** A real, in-memory `MentionableUsers`: a set of account names, with a log of the lookups made. */
import { MentionableUsers } from "@kiln/domain/markdown/MentionableUsers"
import { Effect, Layer } from "effect"

export interface InMemoryMentionableUsers {
  readonly add: (name: string) => void
  /** The names asked for, one entry per lookup. */
  readonly lookups: Array<ReadonlyArray<string>>
  readonly service: MentionableUsers["Service"]
  readonly layer: Layer.Layer<MentionableUsers>
}

export const makeInMemoryMentionableUsers = (names: ReadonlyArray<string>): InMemoryMentionableUsers => {
  const accounts = new Set(names.map((name) => name.toLowerCase()))
  const lookups: Array<ReadonlyArray<string>> = []
  const service = MentionableUsers.of({
    existing: (asked) =>
      Effect.sync(() => {
        lookups.push([...asked])
        return new Set(asked.filter((name) => accounts.has(name.toLowerCase())))
      })
  })
  return {
    add: (name) => accounts.add(name.toLowerCase()),
    lookups,
    service,
    layer: Layer.succeed(MentionableUsers, service)
  }
}
