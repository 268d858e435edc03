/**
 * Instance quota settings the domain reads.
 */
import { Context, Layer } from "effect"

export class QuotaConfig extends Context.Service<QuotaConfig, {
  /**
   * Names of the groups that limit an owner with no assigned group (Forgejo's `[quota] DEFAULT_GROUPS`).
   * Names of groups that do not exist are ignored; an empty list leaves such owners unlimited.
   */
  readonly defaultGroups: ReadonlyArray<string>
  /**
   * Whether writes are refused to owners over quota (Forgejo's `[quota] ENABLED`). Off, quotas only
   * report, as the spec describes them.
   */
  readonly enforce: boolean
}>()("@kiln/domain/quota/QuotaConfig") {
  static readonly layer = (defaultGroups: ReadonlyArray<string>, enforce = false): Layer.Layer<QuotaConfig> =>
    Layer.succeed(QuotaConfig, QuotaConfig.of({ defaultGroups, enforce }))
}
