/**
 * Deploy keys of a repository, managed by its administrators (Forgejo's routers/api/v1/repo/key.go
 * and services/asymkey/deploy_key.go): the same key parsing as account keys, Forgejo's refusals.
 */
import { Clock, Context, Effect, Layer, Option } from "effect"
import { Digest } from "effect/crypto"
import { type AlreadyExists, Forbidden, Invalid } from "../errors.ts"
import { atLeast } from "../org/AccessMode.ts"
import type { Page, PageRequest } from "../Paging.ts"
import { parseSshPublicKey, sshFingerprint } from "../user/SshPublicKey.ts"
import type { User } from "../user/User.ts"
import type { DeployKey } from "./DeployKey.ts"
import { DeployKeyStore } from "./DeployKeyStore.ts"
import { Repositories } from "./Repositories.ts"

export interface DeployKeyInput {
  readonly title: string
  readonly key: string
  readonly readOnly: boolean
}

export class DeployKeys extends Context.Service<DeployKeys, {
  /** Invalid: `[Title]: Required`, `Invalid key content: ...`; AlreadyExists: Forgejo's three texts. */
  readonly add: (repositoryId: number, input: DeployKeyInput) => Effect.Effect<DeployKey, Invalid | AlreadyExists>
  /** A key of another repository is none, as Forgejo checks it. */
  readonly get: (repositoryId: number, id: number) => Effect.Effect<Option.Option<DeployKey>>
  readonly list: (query: {
    readonly repositoryId: number
    readonly keyId?: number | undefined
    readonly fingerprint?: string | undefined
    readonly page: PageRequest
  }) => Effect.Effect<Page<DeployKey>>
  /**
   * Forgejo's deletion: an unknown id succeeds (nothing to delete); the doer must administer the
   * key's own repository (whatever repository the path named) or be a site admin.
   */
  readonly remove: (doer: User, id: number) => Effect.Effect<void, Forbidden>
}>()("@kiln/domain/repo/DeployKeys") {}

export const layer: Layer.Layer<DeployKeys, never, DeployKeyStore | Repositories | Digest.Digest> = Layer.effect(
  DeployKeys,
  Effect.gen(function*() {
    const store = yield* DeployKeyStore
    const repositories = yield* Repositories
    const digest = yield* Digest.Digest

    const add = Effect.fnUntraced(function*(repositoryId: number, input: DeployKeyInput) {
      if (input.title === "") return yield* new Invalid({ field: "Title", message: "[Title]: Required" })
      if (input.key === "") return yield* new Invalid({ field: "Key", message: "[Key]: Required" })
      const parsed = yield* parseSshPublicKey(input.key)
      const fingerprint = yield* Effect.provideService(sshFingerprint(parsed), Digest.Digest, digest)
      return yield* store.insert({
        repositoryId,
        title: input.title,
        content: parsed.content,
        fingerprint,
        readOnly: input.readOnly,
        createdAt: Math.floor((yield* Clock.currentTimeMillis) / 1000)
      })
    })

    const get = (repositoryId: number, id: number) =>
      Effect.map(store.findById(id), Option.filter((key) => key.repositoryId === repositoryId))

    const denied = new Forbidden({ message: "You do not have access to this key" })

    const remove = Effect.fnUntraced(function*(doer: User, id: number) {
      const key = yield* store.findById(id)
      if (Option.isNone(key)) return
      if (!doer.isAdmin) {
        const repository = yield* Effect.option(repositories.accessibleById(Option.some(doer), key.value.repositoryId))
        if (Option.isNone(repository) || !atLeast(repository.value.access.mode, "admin")) return yield* denied
      }
      yield* store.remove(id)
    })

    return DeployKeys.of({ add, get, list: store.list, remove })
  })
)
