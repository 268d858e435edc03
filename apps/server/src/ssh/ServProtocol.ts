/**
 * The data directory's SSH socket (`kiln-ssh.sock`), through which `kiln keys` and `kiln serv`, run
 * by the system's sshd, reach the running server when it holds the embedded database (which admits
 * one process). The client sends one JSON line, then (for `serv`) its standard input as raw bytes,
 * half-closing when it ends; the server answers with frames: a kind byte, a 4-byte big-endian
 * length and the payload (standard output, standard error, or the exit status).
 */
import { Schema } from "effect"

export const SSH_SOCKET_NAME = "kiln-ssh.sock"

export const ServRequest = Schema.Union([
  Schema.Struct({
    command: Schema.Literal("serv"),
    keyId: Schema.Int,
    originalCommand: Schema.String,
    gitProtocol: Schema.optional(Schema.String)
  }),
  Schema.Struct({ command: Schema.Literal("keys"), type: Schema.String, key: Schema.String })
])
export type ServRequest = typeof ServRequest.Type

export const decodeServRequest = Schema.decodeUnknownEffect(Schema.fromJsonString(ServRequest))

export const FRAME_STDOUT = 1
export const FRAME_STDERR = 2
export const FRAME_EXIT = 3

export const frame = (kind: number, payload: Uint8Array): Buffer => {
  const header = Buffer.alloc(5)
  header.writeUInt8(kind, 0)
  header.writeUInt32BE(payload.length, 1)
  return Buffer.concat([header, payload])
}

/** Splits a byte stream into frames; calls `onFrame` for each whole one. */
export const frameReader = (onFrame: (kind: number, payload: Buffer) => void) => {
  let pending: Buffer = Buffer.alloc(0)
  return (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
    while (pending.length >= 5) {
      const length = pending.readUInt32BE(1)
      if (pending.length < 5 + length) break
      onFrame(pending.readUInt8(0), pending.subarray(5, 5 + length))
      pending = pending.subarray(5 + length)
    }
  }
}
