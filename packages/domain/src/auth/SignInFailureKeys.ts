/**
 * The keys failed password sign-ins are counted under (SignInFailureStore): the client address
 * (`address:<ip>`), and the account from that address (`account:<id>@<ip>`, or `name:<digest>@<ip>`
 * for a name no account has). An account's failures are counted per address so that a stranger
 * failing from elsewhere never refuses the owner; the address limit stops one client guessing
 * across accounts.
 *
 * Every key is short whatever the request carried: a name is kept as its SHA-256, and an address
 * (an IP address as the connection or a trusted proxy gives it) longer than any IP address is too.
 */
import { Effect, Option } from "effect"
import { Digest } from "effect/crypto"
import type { User } from "../user/User.ts"
import { utf8Bytes } from "../Utf8.ts"

export interface FailureKeys {
  /** The account (or the name) from this address. */
  readonly account: string
  /** The address; undefined when the client's address is unknown. */
  readonly address: string | undefined
}

/** Longer than any IPv6 text form (45 characters). */
const MAX_ADDRESS_LENGTH = 64

const sha256 = (digest: Digest.Digest["Service"], text: string) =>
  digest.digestHex(Digest.sha256, new Uint8Array(utf8Bytes(text)))

export const failureKeys = (
  digest: Digest.Digest["Service"],
  login: string,
  account: Option.Option<User>,
  address: string | undefined
): Effect.Effect<FailureKeys> =>
  Effect.gen(function*() {
    const who = Option.isSome(account) ? `account:${account.value.id}` : `name:${yield* sha256(digest, login.toLowerCase())}`
    if (address === undefined) return { account: who, address: undefined }
    const where = address.length <= MAX_ADDRESS_LENGTH ? address : `#${yield* sha256(digest, address)}`
    return { account: `${who}@${where}`, address: `address:${where}` }
  })

/** The keys as a list, for the store. */
export const keyList = (keys: FailureKeys): ReadonlyArray<string> =>
  keys.address === undefined ? [keys.account] : [keys.account, keys.address]
