/**
 * One command of an SSH client, whichever SSH server carried it (Kiln's own, or the system's sshd
 * through `kiln serv`): read as Forgejo's `serv` reads it, decided by GitAccess (the decision
 * smart HTTP uses), then served by git through GitStreams, pushes taking the path every push takes
 * (GitPushes). A refusal is one line on standard error (`Kiln: …`) and exit status 1.
 */
import { stat } from "node:fs/promises"
import { join } from "node:path"
import type { Readable, Writable } from "node:stream"
import { Effect, Option } from "effect"
import { type GitAccessDecision, GitAccess, type GitOperation, refusalMessage } from "@kiln/domain/git/GitAccess"
import { LfsAuthenticate } from "@kiln/domain/lfs/LfsAuthenticate"
import { parseSshCommand } from "@kiln/domain/ssh/SshCommand"
import { DataChanges } from "@kiln/domain/changes/DataChanges"
import { type SshIdentity, SshIdentities } from "@kiln/domain/ssh/SshIdentities"
import { makeGitStreams, repositoryPath } from "@kiln/git"
import { decisionVersion, GitDecisions } from "../git/GitDecisions.ts"
import { GitListings } from "../git/GitListings.ts"
import { GitProcessPool } from "../git/GitProcessPool.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import * as GitPushes from "../git/GitPushes.ts"
import { ServerMetrics } from "../metrics/ServerMetrics.ts"

/** An identity as a sign-in read it, and the access version it was read at (undefined: none could be trusted). */
export interface SignedIn {
  readonly identity: SshIdentity
  readonly version: number | undefined
}

export interface SessionStreams {
  readonly input: Readable
  readonly output: Writable
  readonly errors: Writable
  /** Aborted when the client is gone. */
  readonly signal: AbortSignal
}

// What Forgejo lets through to GIT_PROTOCOL: `key=value` pairs joined by `:`.
const safeGitProtocol = /^[0-9a-zA-Z]+=[0-9a-zA-Z]+(?::[0-9a-zA-Z]+=[0-9a-zA-Z]+)*$/

export const acceptedGitProtocol = (value: string | undefined): string | undefined =>
  value !== undefined && value.length <= 256 && safeGitProtocol.test(value) ? value : undefined

/** Renames followed at most this many times (a chain of renames each leaving a redirect). */
const MAX_MOVES = 5

/** The text of a refusal (Forgejo's serv wording where it has one). */
export const decisionMessage = (decision: Exclude<GitAccessDecision, { readonly kind: "allowed" }>, owner: string, repo: string): string => {
  switch (decision.kind) {
    case "forbidden":
      return refusalMessage(decision.reason)
    case "quota-exceeded":
      return "Quota exceeded: the repository owner is over quota"
    case "moved":
    case "not-found":
    case "unauthorized":
      return `Cannot find repository: ${owner}/${repo}`
  }
}

export const make = Effect.gen(function*() {
  const config = yield* KilnConfig
  const access = yield* GitAccess
  const pushes = yield* GitPushes.make
  const identities = yield* SshIdentities
  // Where no data version is kept (`kiln serv`), every command reads its key again and decides anew.
  const changes = yield* Effect.serviceOption(DataChanges)
  const version = () => Option.isSome(changes) ? changes.value.accessVersion() : undefined
  const lfs = yield* Effect.serviceOption(LfsAuthenticate)
  const metrics = yield* Effect.serviceOption(ServerMetrics)
  const services = yield* Effect.context<never>()
  const run = <A>(effect: Effect.Effect<A>) => Effect.runPromiseWith(services)(effect)
  const root = join(config.dataDir, "repositories")
  const git = makeGitStreams({
    slots: yield* GitProcessPool,
    // `kiln serv` (one command per process, no data version) keeps none: they would die with it.
    listings: Option.isSome(changes) ? Option.getOrUndefined(yield* Effect.serviceOption(GitListings)) : undefined,
    afterPush: pushes.afterPush,
    writeSection: pushes.writeSection,
    idleTimeoutMillis: config.gitIdleTimeoutSeconds * 1000,
    onError: (error, request) => void run(Effect.logError(`git over SSH failed for ${request.owner}/${request.repo}`, error))
  })

  /**
   * Decisions kept as smart HTTP keeps them (GitDecisions.ts), by the key that signed in: a key is
   * never guessed (its signature was checked), so refusals are kept too.
   */
  const decisions = new GitDecisions<GitAccessDecision>({ maxEntries: 4_096, ttlMillis: 60_000 })

  /** GitAccess's decision, an old name followed to the current one as git over SSH cannot be redirected. */
  const decide = async (identity: SshIdentity, owner: string, repo: string, operation: GitOperation) => {
    const service = operation === "write" ? "git-receive-pack" : "git-upload-pack"
    // Read before deciding: a change committed meanwhile moves it, and the decision is not kept.
    const version = Option.isSome(changes) ? decisionVersion(changes.value, service, config.quotaEnforce, /* a key signs someone in */ false) : undefined
    const signedIn = { username: `${identity.caller._tag} ${identity.key.id}`, password: "" }
    const key = version === undefined ? undefined : decisions.keyOf({ owner, repo, service, credentials: signedIn })
    const kept = key === undefined || version === undefined ? undefined : decisions.get(key, version)
    if (kept !== undefined) return kept
    let decision = await run(access.decide(identity.caller, owner, repo, operation))
    for (let moves = 0; decision.kind === "moved" && moves < MAX_MOVES; moves++) {
      decision = await run(access.decide(identity.caller, decision.owner, decision.repo, operation))
    }
    if (key !== undefined && version !== undefined) decisions.set(key, version, decision)
    return decision
  }

  const refuse = (streams: SessionStreams, message: string): number => {
    streams.errors.write(`Kiln: ${message}\n`)
    return 1
  }

  const gitOperation = (verb: string) => verb === "git-receive-pack" ? "push" : verb === "git-upload-archive" ? "archive" : "clone"

  /**
   * Serves `command` for `identity`; resolves with the exit status. `protocol`: the client's
   * GIT_PROTOCOL (checked here).
   */
  const serve = async (identity: SshIdentity, command: string, protocol: string | undefined, streams: SessionStreams): Promise<number> => {
    const parsed = parseSshCommand(command)
    if (parsed._tag === "Refused") return refuse(streams, parsed.message)
    if (parsed._tag === "LfsAuthenticate") {
      if (Option.isNone(lfs)) return refuse(streams, "LFS authentication request over SSH denied, LFS support is disabled")
      const operation: GitOperation = parsed.operation === "upload" ? "write" : "read"
      const answer = await run(Effect.result(lfs.value.authenticate(identity.caller, parsed.owner, parsed.repo, operation)))
      if (answer._tag === "Failure") return refuse(streams, decisionMessage(answer.failure.refusal, parsed.owner, parsed.repo))
      const { href, header, expiresIn } = answer.success
      streams.output.write(`${JSON.stringify({ href, header, expires_in: expiresIn })}\n`)
      return 0
    }
    const operation: GitOperation = parsed.verb === "git-receive-pack" ? "write" : "read"
    const decision = await decide(identity, parsed.owner, parsed.repo, operation)
    const outcome = (value: "success" | "failure") =>
      Option.map(metrics, (m) => m.gitOperations.inc({ operation: gitOperation(parsed.verb), outcome: value, transport: "ssh" }))
    if (decision.kind !== "allowed") {
      outcome("failure")
      return refuse(streams, decisionMessage(decision, parsed.owner, parsed.repo))
    }
    const { target } = decision
    const path = repositoryPath(root, { owner: target.owner.name, name: target.repository.name })
    const exists = await stat(path).then((found) => found.isDirectory(), () => false)
    if (!exists) {
      outcome("failure")
      return refuse(streams, `Cannot find repository: ${parsed.owner}/${parsed.repo}`)
    }
    const code = await git.serve({
      service: parsed.verb,
      owner: target.owner.name,
      repo: target.repository.name,
      path,
      protocol: acceptedGitProtocol(protocol),
      // A deploy key pushes as the repository's owner, as in Forgejo (webhooks name a pusher).
      pusher: Option.match(decision.pusher, {
        onNone: () => identity.caller._tag === "DeployKey" && operation === "write" ? target.owner.id : undefined,
        onSome: (user) => user.id
      }),
      grant: operation === "write" ? pushes.grantFor(target) : undefined,
      ...streams
    })
    outcome(code === 0 ? "success" : "failure")
    return code
  }

  /**
   * Serves `command` for the key `keyId` as it is now (deleted, or its account disabled since the
   * client signed in: refused). An empty command is an interactive login, which Kiln has none of.
   * `signedIn`: the identity the sign-in read, taken as it is while the access version has not moved
   * since (nothing it was read from has changed, in any process).
   */
  const serveKey = async (
    keyId: number,
    command: string,
    protocol: string | undefined,
    streams: SessionStreams,
    signedIn?: SignedIn
  ): Promise<number> => {
    const unchanged = signedIn !== undefined && signedIn.version !== undefined && signedIn.version === version() &&
      signedIn.identity.key.id === keyId
    const identity = unchanged ? Option.some(signedIn.identity) : await run(identities.byKeyId(keyId))
    if (Option.isNone(identity)) return refuse(streams, "Your key is no longer valid.")
    if (command.trim() === "") return refuse(streams, "Hi there! You've successfully authenticated, but Kiln does not provide shell access.")
    return serve(identity.value, command, protocol, streams)
  }

  return { serve, serveKey }
})

export type GitSessions = Effect.Success<typeof make>
