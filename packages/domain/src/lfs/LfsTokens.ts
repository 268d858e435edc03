/**
 * The LFS server's side of `git-lfs-authenticate`: a short-lived bearer token bound to one
 * repository, one operation and one holder (an account, or a deploy key), stored only as its
 * SHA-256 so that every process on the database accepts it. A token never outranks its holder: on
 * each use, GitAccess decides again for the account or the key as it is now (a revoked
 * collaborator, a blocked account, a removed or read-only key, an archived repository refuse it),
 * and a download token cannot upload.
 */
import { Clock, Context, Effect, Layer, Option } from "effect"
import { Digest, SecureRandom } from "effect/crypto"
import { Hex } from "effect/encoding"
import { deployKey, GitAccess, type GitCaller, type GitOperation, signed } from "../git/GitAccess.ts"
import { DeployKeyStore } from "../repo/DeployKeyStore.ts"
import { UserStore } from "../user/UserStore.ts"
import { utf8Bytes } from "../Utf8.ts"
import { LfsAuthenticate, LfsAuthenticateRefused } from "./LfsAuthenticate.ts"
import { LfsStore, type StoredLfsToken } from "./LfsStore.ts"

/** Tokens start with this, so that they never pass for an access token (40 hex digits). */
export const LFS_TOKEN_PREFIX = "kiln-lfs-"

/** Where the LFS API is, and how long a token lasts. */
export interface LfsTokenSettingsShape {
  /** Kiln's root URL, ending with `/`. */
  readonly rootUrl: string
  readonly lifetimeSeconds: number
}

export class LfsTokenSettings extends Context.Reference<LfsTokenSettingsShape>("@kiln/domain/lfs/LfsTokenSettings", {
  defaultValue: () => ({ rootUrl: "http://localhost:3000/", lifetimeSeconds: 3600 })
}) {}

export const isLfsToken = (secret: string): boolean => secret.startsWith(LFS_TOKEN_PREFIX)

export class LfsTokens extends Context.Service<LfsTokens, {
  /**
   * The holder of a live token as a git caller (the account, or the deploy key with its grants as
   * they are now) and what the token grants; none for an unknown or expired one, or a holder gone.
   */
  readonly resolve: (secret: string) => Effect.Effect<Option.Option<{ readonly caller: GitCaller; readonly token: StoredLfsToken }>>
}>()("@kiln/domain/lfs/LfsTokens") {}

const operationOf = (operation: GitOperation): StoredLfsToken["operation"] => operation === "write" ? "upload" : "download"

export const lfsHref = (rootUrl: string, owner: string, repo: string): string =>
  `${rootUrl}${encodeURIComponent(owner)}/${encodeURIComponent(repo)}.git/info/lfs`

/** LfsAuthenticate (for the SSH transport) and LfsTokens (for the HTTP routes), over one store. */
export const layer: Layer.Layer<
  LfsAuthenticate | LfsTokens,
  never,
  GitAccess | LfsStore | UserStore | DeployKeyStore | Digest.Digest | SecureRandom.SecureRandom
> = Layer.effectContext(Effect.gen(function*() {
  const access = yield* GitAccess
  const store = yield* LfsStore
  const users = yield* UserStore
  const deployKeys = yield* DeployKeyStore
  const digest = yield* Digest.Digest
  const random = yield* SecureRandom.SecureRandom
  const settings = yield* LfsTokenSettings
  const hashOf = (secret: string) => Effect.orDie(digest.digestHex(Digest.sha256, new Uint8Array(utf8Bytes(secret))))

  const authenticate = Effect.fnUntraced(function*(caller: GitCaller, owner: string, repo: string, operation: GitOperation) {
    const decision = yield* access.decide(caller, owner, repo, operation)
    if (decision.kind !== "allowed") return yield* new LfsAuthenticateRefused({ refusal: decision })
    const { target } = decision
    const href = lfsHref(settings.rootUrl, target.owner.name, target.repository.name)
    // Nobody to bind a token to: the address alone (a public repository's objects are readable).
    if (caller._tag === "Anonymous") return { href, header: {}, expiresIn: settings.lifetimeSeconds }
    const secret = `${LFS_TOKEN_PREFIX}${Hex.encode(yield* Effect.orDie(random.randomBytes(32)))}`
    const now = yield* Clock.currentTimeMillis
    yield* store.saveToken(yield* hashOf(secret), {
      repositoryId: target.repository.id,
      holder: caller._tag === "Signed" ? { _tag: "User", userId: caller.principal.user.id } : { _tag: "DeployKey", keyId: caller.keyId },
      operation: operationOf(operation),
      expiresAt: now + settings.lifetimeSeconds * 1000
    })
    return { href, header: { Authorization: `Bearer ${secret}` }, expiresIn: settings.lifetimeSeconds }
  })

  const resolve = Effect.fnUntraced(function*(secret: string) {
    if (!isLfsToken(secret)) return Option.none()
    const found = yield* store.findToken(yield* hashOf(secret), yield* Clock.currentTimeMillis)
    if (Option.isNone(found)) return Option.none()
    const token = found.value
    if (token.holder._tag === "DeployKey") {
      const grants = yield* deployKeys.grantsOf(token.holder.keyId)
      if (grants.length === 0) return Option.none()
      const caller = deployKey(token.holder.keyId, grants.map((grant) => ({ repositoryId: grant.repositoryId, readOnly: grant.readOnly })))
      return Option.some({ caller, token })
    }
    const user = yield* users.findById(token.holder.userId)
    return Option.map(user, (account) => ({ caller: signed({ user: account, method: "token", scopes: Option.none() }), token }))
  })

  return Context.make(LfsAuthenticate, LfsAuthenticate.of({ authenticate })).pipe(Context.add(LfsTokens, LfsTokens.of({ resolve })))
}))
