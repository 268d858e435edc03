/** Forgejo's `EnforceQuotaAPI` for handlers: 413 `quota exceeded` when the owner is over quota. */
import { Effect } from "effect"
import { QuotaEnforcement } from "@kiln/domain/quota/QuotaEnforcement"
import type { Subject } from "@kiln/domain/quota/Subject"
import type { User } from "@kiln/domain/user/User"
import { ApiQuotaExceeded } from "./ApiErrors.ts"

export const QUOTA_EXCEEDED_MESSAGE = "quota exceeded"

export const requireWithinQuota = (owner: User, subject: Subject): Effect.Effect<void, ApiQuotaExceeded, QuotaEnforcement> =>
  Effect.flatMap(Effect.service(QuotaEnforcement), (quotas) => quotas.require(owner, subject)).pipe(
    Effect.mapError((exceeded) => new ApiQuotaExceeded({ message: QUOTA_EXCEEDED_MESSAGE, user_id: exceeded.userId, username: exceeded.userName }))
  )
