/**
 * Who an SSH key speaks for, read from the store each time it is asked (nothing is remembered, so
 * a key deleted through any process is refused by every process at once): an account that may
 * sign in, or a deploy key with the repositories it was added to. A key of an account that is
 * prohibited from signing in, inactive or gone opens nothing.
 */
import { Context, Effect, Layer, Option } from "effect"
import { deployKey, type GitCaller, signed } from "../git/GitAccess.ts"
import { DeployKeyStore } from "../repo/DeployKeyStore.ts"
import { isDisabled, type User } from "../user/User.ts"
import { UserStore } from "../user/UserStore.ts"
import { type StoredSshKey, SshKeyStore } from "./SshKeyStore.ts"

export interface SshIdentity {
  readonly key: StoredSshKey
  readonly caller: GitCaller
  /** The account, for a user key. */
  readonly user: Option.Option<User>
}

export class SshIdentities extends Context.Service<SshIdentities, {
  /** None for an unknown key, or one that opens nothing. */
  readonly byFingerprint: (fingerprint: string) => Effect.Effect<Option.Option<SshIdentity>>
  readonly byKeyId: (keyId: number) => Effect.Effect<Option.Option<SshIdentity>>
}>()("@kiln/domain/ssh/SshIdentities") {}

export const layer: Layer.Layer<SshIdentities, never, SshKeyStore | DeployKeyStore | UserStore> = Layer.effect(
  SshIdentities,
  Effect.gen(function*() {
    const keys = yield* SshKeyStore
    const deployKeys = yield* DeployKeyStore
    const users = yield* UserStore

    const identityOf = Effect.fnUntraced(function*(key: StoredSshKey) {
      if (key.kind === "deploy") {
        const grants = yield* deployKeys.grantsOf(key.id)
        if (grants.length === 0) return Option.none<SshIdentity>()
        const caller = deployKey(key.id, grants.map((grant) => ({ repositoryId: grant.repositoryId, readOnly: grant.readOnly })))
        return Option.some<SshIdentity>({ key, caller, user: Option.none() })
      }
      if (key.ownerId === undefined) return Option.none<SshIdentity>()
      const user = yield* users.findById(key.ownerId)
      if (Option.isNone(user) || isDisabled(user.value)) return Option.none<SshIdentity>()
      const caller = signed({ user: user.value, method: "ssh-key", scopes: Option.none() })
      return Option.some<SshIdentity>({ key, caller, user })
    })

    const resolve = (found: Effect.Effect<Option.Option<StoredSshKey>>) =>
      Effect.flatMap(found, Option.match({ onNone: () => Effect.succeed(Option.none<SshIdentity>()), onSome: identityOf }))

    return SshIdentities.of({
      byFingerprint: (fingerprint) => resolve(keys.findByFingerprint(fingerprint)),
      byKeyId: (keyId) => resolve(keys.findById(keyId))
    })
  })
)
