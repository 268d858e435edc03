/**
 * Forgejo's `EnforceQuotaAPI` / `CheckQuota`: before a write that adds data (a repository, a fork,
 * a migration, a push, a release attachment, a package file), the owner the data will count
 * against must be within quota for the subject. Only when enforcement is configured on: otherwise
 * quotas only report (the spec: "They do not enforce limits on any other operation").
 */
import { Context, Effect, Layer, Schema } from "effect"
import type { User } from "../user/User.ts"
import { QuotaConfig } from "./QuotaConfig.ts"
import { QuotaService } from "./QuotaService.ts"
import type { Subject } from "./Subject.ts"

/** The owner is over quota: Forgejo's 413 `quota exceeded` with the owner's id and name. */
export class QuotaExceeded extends Schema.TaggedError<QuotaExceeded>()("QuotaExceeded", {
  userId: Schema.Number,
  userName: Schema.String
}) {}

export class QuotaEnforcement extends Context.Service<QuotaEnforcement, {
  /** Fails with QuotaExceeded when enforcement is on and `owner` is over quota for `subject`. */
  readonly require: (owner: User, subject: Subject) => Effect.Effect<void, QuotaExceeded>
}>()("@kiln/domain/quota/QuotaEnforcement") {
  static readonly layer: Layer.Layer<QuotaEnforcement, never, QuotaService | QuotaConfig> = Layer.effect(
    QuotaEnforcement,
    Effect.gen(function*() {
      const config = yield* QuotaConfig
      const quotas = yield* QuotaService
      return QuotaEnforcement.of({
        require: (owner, subject) =>
          config.enforce
            ? quotas.check(owner.id, subject).pipe(
              // The subject is one of the known strings: Invalid cannot happen.
              Effect.orDie,
              Effect.flatMap((over) => over ? Effect.fail(new QuotaExceeded({ userId: owner.id, userName: owner.name })) : Effect.void)
            )
            : Effect.void
      })
    })
  )
}
