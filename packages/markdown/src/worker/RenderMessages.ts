/** What the server and a render process say to each other. */
import type { RenderRequest } from "@kiln/domain/markdown/RenderRequest"

export interface RenderJob {
  readonly id: number
  readonly request: RenderRequest
  readonly mentionable: ReadonlyArray<string>
}

export type WorkerMessage =
  | { readonly _tag: "Ready" }
  | { readonly _tag: "Rendered"; readonly id: number; readonly html: string; readonly failure?: string }
