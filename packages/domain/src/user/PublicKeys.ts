/** SSH public keys of accounts (api-facts §2 keys, behaviour-cases P). */
import { Clock, Context, Effect, Layer, Option } from "effect"
import { Digest } from "effect/crypto"
import { checkMaxSize, STORED_NAME_MAX_LENGTH } from "../binding/MaxSize.ts"
import { type AlreadyExists, Forbidden, Invalid, NotFound } from "../errors.ts"
import type { Page, PageRequest } from "../Paging.ts"
import type { PublicKey } from "./PublicKey.ts"
import { PublicKeyStore } from "./PublicKeyStore.ts"
import { parseSshPublicKey, sshFingerprint } from "./SshPublicKey.ts"
import type { User } from "./User.ts"

export class PublicKeys extends Context.Service<PublicKeys, {
  /** Invalid: `[Title]: Required|MaxSize` (past 255 characters), `Invalid key content: ...`; AlreadyExists: duplicate content or title. */
  readonly add: (owner: User, input: { readonly title: string; readonly key: string; readonly readOnly: boolean }) =>
    Effect.Effect<PublicKey, Invalid | AlreadyExists>
  /**
   * Forgejo's admin key deletion: the check compares the key with `pathUser` (who must own it or
   * be a site admin), not with the caller. NotFound: no such key; Forbidden otherwise.
   */
  readonly removeFor: (pathUser: User, keyId: number) => Effect.Effect<void, NotFound | Forbidden>
  readonly list: (query: {
    readonly ownerId?: number | undefined
    readonly fingerprint?: string | undefined
    readonly page: PageRequest
  }) => Effect.Effect<Page<PublicKey>>
}>()("@kiln/domain/user/PublicKeys") {}

export const layer: Layer.Layer<PublicKeys, never, PublicKeyStore | Digest.Digest> = Layer.effect(
  PublicKeys,
  Effect.gen(function*() {
    const store = yield* PublicKeyStore
    const digest = yield* Digest.Digest

    const add = Effect.fnUntraced(function*(owner: User, input: { title: string; key: string; readOnly: boolean }) {
      if (input.title === "") return yield* new Invalid({ field: "Title", message: "[Title]: Required" })
      yield* checkMaxSize("Title", input.title, STORED_NAME_MAX_LENGTH)
      if (input.key === "") return yield* new Invalid({ field: "Key", message: "[Key]: Required" })
      const parsed = yield* parseSshPublicKey(input.key)
      const fingerprint = yield* Effect.provideService(sshFingerprint(parsed), Digest.Digest, digest)
      return yield* store.insert({
        ownerId: owner.id,
        title: input.title,
        content: parsed.content,
        fingerprint,
        readOnly: input.readOnly,
        createdAt: Math.floor((yield* Clock.currentTimeMillis) / 1000)
      })
    })

    const removeFor = Effect.fnUntraced(function*(pathUser: User, keyId: number) {
      const key = yield* store.findById(keyId)
      if (Option.isNone(key)) return yield* new NotFound({ message: `public key does not exist [id: ${keyId}]` })
      if (key.value.ownerId !== pathUser.id && !pathUser.isAdmin) {
        return yield* new Forbidden({ message: "You do not have access to this key" })
      }
      yield* store.remove(keyId)
    })

    return PublicKeys.of({ add, removeFor, list: store.list })
  })
)
