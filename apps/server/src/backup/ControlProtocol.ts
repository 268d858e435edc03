/**
 * The data directory's control socket (`kiln.sock`), through which `kiln dump` asks a running
 * server to dump: the embedded database admits one process, so the server that holds it makes the
 * snapshot. One JSON line asks; the server answers with progress lines and one last line.
 */
import { Schema } from "effect"
import { Manifest } from "./Manifest.ts"

export const SOCKET_NAME = "kiln.sock"

export const DumpRequest = Schema.Struct({ command: Schema.Literal("dump"), output: Schema.String })

const SecretCount = Schema.Struct({ where: Schema.String, what: Schema.String, rows: Schema.Int })

export const DumpSummarySchema = Schema.Struct({
  output: Schema.String,
  archiveBytes: Schema.Int,
  manifest: Manifest,
  missingFiles: Schema.Array(Schema.String),
  filesWithoutRows: Schema.Array(Schema.String),
  secrets: Schema.Array(SecretCount),
  signingKeyIncluded: Schema.Boolean,
  sshHostKeysIncluded: Schema.Int
})

export const Reply = Schema.Union([
  Schema.Struct({ type: Schema.Literal("started"), estimate: Schema.Number }),
  Schema.Struct({ type: Schema.Literal("progress"), items: Schema.Int, bytes: Schema.Number }),
  Schema.Struct({ type: Schema.Literal("done"), summary: DumpSummarySchema }),
  Schema.Struct({ type: Schema.Literal("failed"), message: Schema.String })
])
export type Reply = typeof Reply.Type

export const encodeLine = (value: unknown): string => `${JSON.stringify(value)}\n`
export const decodeRequest = Schema.decodeUnknownEffect(Schema.fromJsonString(DumpRequest))
export const decodeReply = Schema.decodeUnknownEffect(Schema.fromJsonString(Reply))
