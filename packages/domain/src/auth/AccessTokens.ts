/** Personal access tokens: issued once, kept only as a salted SHA-256 of the secret (api-facts §8.4). */
import { Clock, Context, Effect, Layer, Option } from "effect"
import { Digest, SecureRandom } from "effect/crypto"
import { Hex } from "effect/encoding"
import { checkMaxSize, STORED_NAME_MAX_LENGTH } from "../binding/MaxSize.ts"
import { AlreadyExists, Invalid, NotFound } from "../errors.ts"
import type { Page, PageRequest } from "../Paging.ts"
import type { User } from "../user/User.ts"
import type { AccessToken } from "./AccessToken.ts"
import { parseAccessTokenScopes } from "./AccessTokenScope.ts"
import { AccessTokenStore } from "./AccessTokenStore.ts"
import { tokenDigestInput } from "./Authentication.ts"

export class AccessTokens extends Context.Service<AccessTokens, {
  /** The secret is returned here and never again. Invalid: no name, a name past 255 characters (422), bad or no scopes (400); AlreadyExists: name used. */
  readonly issue: (owner: User, name: string, scopes: ReadonlyArray<string>) => Effect.Effect<
    { readonly token: AccessToken; readonly secret: string },
    Invalid | AlreadyExists
  >
  readonly list: (owner: User, page: PageRequest) => Effect.Effect<Page<AccessToken>>
  /** `idOrName` is a numeric id, or else a token name. */
  readonly revoke: (owner: User, idOrName: string) => Effect.Effect<void, NotFound>
}>()("@kiln/domain/auth/AccessTokens") {}

export const layer: Layer.Layer<AccessTokens, never, AccessTokenStore | Digest.Digest | SecureRandom.SecureRandom> =
  Layer.effect(
    AccessTokens,
    Effect.gen(function*() {
      const store = yield* AccessTokenStore
      const digest = yield* Digest.Digest
      const random = yield* SecureRandom.SecureRandom

      const issue = Effect.fnUntraced(function*(owner: User, name: string, requested: ReadonlyArray<string>) {
        // Binding (`Required`) first, then the width of Forgejo's column.
        if (name === "") return yield* new Invalid({ field: "Name", message: "[Name]: Required" })
        yield* checkMaxSize("Name", name, STORED_NAME_MAX_LENGTH)
        const scopes = yield* parseAccessTokenScopes(requested)
        const existing = yield* store.findByName(owner.id, name)
        if (Option.isSome(existing)) return yield* new AlreadyExists({ message: "access token name has been used already" })
        const secret = Hex.encode(yield* random.randomBytes(20))
        const salt = Hex.encode(yield* random.randomBytes(10))
        const hash = yield* digest.digestHex(Digest.sha256, tokenDigestInput(salt, secret))
        const token = yield* store.insert({
          userId: owner.id,
          name,
          scopes,
          lastEight: secret.slice(-8),
          salt,
          hash,
          createdAt: Math.floor((yield* Clock.currentTimeMillis) / 1000)
        })
        return { token, secret }
      })

      const revoke = Effect.fnUntraced(function*(owner: User, idOrName: string) {
        const byId = /^\d+$/.test(idOrName) ? yield* store.findById(owner.id, Number(idOrName)) : Option.none()
        const token = Option.isSome(byId) ? byId : yield* store.findByName(owner.id, idOrName)
        if (Option.isNone(token)) {
          return yield* new NotFound({ message: `access token does not exist [id: 0]` })
        }
        yield* store.remove(token.value.id)
      })

      return AccessTokens.of({ issue, list: (owner, page) => store.listForUser(owner.id, page), revoke })
    })
  )
