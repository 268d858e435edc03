/**
 * `git-lfs-authenticate <repo> <upload|download>` over SSH (git-lfs docs/api/server-discovery.md):
 * where the LFS API of a repository is and a short-lived header that opens it, for the caller the
 * SSH transport authenticated. The LFS server implements it; the SSH transport only relays it.
 */
import { Context, Data, type Effect } from "effect"
import type { GitAccessDecision, GitCaller, GitOperation } from "../git/GitAccess.ts"

/** The JSON answer git-lfs reads: `{"href", "header", "expires_in"}`. */
export interface LfsAuthentication {
  readonly href: string
  readonly header: Readonly<Record<string, string>>
  /** Seconds the header stays valid. */
  readonly expiresIn: number
}

/** GitAccess refused the caller the operation (anything but `allowed`). */
export class LfsAuthenticateRefused extends Data.TaggedError("LfsAuthenticateRefused")<{
  readonly refusal: Exclude<GitAccessDecision, { readonly kind: "allowed" }>
}> {}

export class LfsAuthenticate extends Context.Service<LfsAuthenticate, {
  readonly authenticate: (
    caller: GitCaller,
    owner: string,
    repo: string,
    operation: GitOperation
  ) => Effect.Effect<LfsAuthentication, LfsAuthenticateRefused>
}>()("@kiln/domain/lfs/LfsAuthenticate") {}
