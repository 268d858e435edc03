/**
 * The port that sends one webhook request: connects only to an address the allowed-hosts list
 * permits (the resolved address is the one connected to), follows no redirect, and gives up after
 * the timeout. Failures are data: the delivery records them.
 */
import { Context, type Effect } from "effect"
import type { AllowedHosts } from "./AllowedHosts.ts"

export interface OutgoingRequest {
  readonly method: string
  readonly url: string
  /** In the order they are written. */
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly body: string
}

export type TransportResult =
  | {
    readonly _tag: "Response"
    readonly status: number
    readonly headers: Readonly<Record<string, string>>
    /** At most the first 64 KiB. */
    readonly body: string
  }
  | {
    readonly _tag: "Failed"
    readonly message: string
    /** Whether no answer came within the timeout, or the exchange broke (name, connection, protocol). */
    readonly reason: "timeout" | "network"
  }
  /** The allowed-hosts list refused every address of the target: retrying cannot help. */
  | { readonly _tag: "Refused"; readonly message: string }

export class HookTransport extends Context.Service<HookTransport, {
  readonly send: (
    request: OutgoingRequest,
    options: { readonly timeout: number; readonly allowed: AllowedHosts }
  ) => Effect.Effect<TransportResult>
}>()("@kiln/domain/webhook/HookTransport") {}

/** Bytes of a response body kept with an attempt. */
export const RESPONSE_BODY_LIMIT = 64 * 1024
