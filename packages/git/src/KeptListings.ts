/**
 * The listings of a server process's repositories kept between requests, for every transport that
 * starts with one: smart HTTP's `info/refs` and `ls-refs` (SmartHttp.ts) and a protocol v2 fetch
 * over SSH (GitStreams.ts). One instance for both, so that a push over either carries the listings
 * forward for a fetch over either.
 */
import type { RefUpdate } from "@kiln/domain/git/RefUpdate"
import { type GitCommandOptions, readRefs } from "./GitCommand.ts"
import * as LsRefsAnswer from "./LsRefsAnswer.ts"
import { ProtocolV2Capabilities } from "./ProtocolV2Capabilities.ts"
import * as ReceivePackAdvertisement from "./ReceivePackAdvertisement.ts"
import { readRefSnapshot, type RefSnapshot } from "./RefFiles.ts"
import { isLsRefsRequest, namesOwnRefsAlone, RECEIVE_ADVERTISEMENT, RefListings } from "./RefListings.ts"

/**
 * The repository's refs, with the snapshot of its ref files they were read from (none when it keeps
 * its refs otherwise: git is asked), as a push reads them before and after its git.
 */
export const snapshotOf = async (command: GitCommandOptions, path: string) => {
  const snapshot = await readRefSnapshot(path)
  return { snapshot, refs: snapshot?.refs ?? await readRefs(command, path) }
}

export class KeptListings {
  /** Protocol v2's capability advertisement, per config. */
  readonly capabilities = new ProtocolV2Capabilities()
  /** `ls-refs` answers and the v0/v1 advertisements, per repository and request. */
  readonly refs = new RefListings()

  /**
   * A push's effect on the listings kept from before it, read in its write section (`before` and
   * `after` its git): the next push's advertisement (ReceivePackAdvertisement.ts) and the next
   * fetch's `ls-refs` (LsRefsAnswer.ts) are the kept answers with the changed refs' lines changed,
   * and ask no git process.
   */
  carry(path: string, before: RefSnapshot | undefined, after: RefSnapshot | undefined, updates: ReadonlyArray<RefUpdate>): void {
    if (before === undefined || after === undefined || before.head !== after.head || before.config !== after.config) return
    const alone = namesOwnRefsAlone(path)
    const pushed: LsRefsAnswer.PushedRefs = {
      updates,
      head: after.head,
      isSymbolic: (ref) => before.symbolic.has(ref) || after.symbolic.has(ref),
      hidesRefs: /hiderefs/i.test(after.config ?? "")
    }
    this.refs.advance(path, before.state, after.state, ({ request, answer }) =>
      request.equals(RECEIVE_ADVERTISEMENT)
        ? (alone ? ReceivePackAdvertisement.advanced(answer, updates) : undefined)
        : isLsRefsRequest(request)
        ? LsRefsAnswer.advanced(request, answer, pushed)
        : undefined)
  }
}
