/** What the server, a render process and its render thread say to each other. */
import type { RenderRequest } from "@kiln/domain/markdown/RenderRequest"

export interface RenderJob {
  readonly id: number
  readonly request: RenderRequest
  readonly mentionable: ReadonlyArray<string>
}

export type WorkerMessage =
  | { readonly _tag: "Ready" }
  | { readonly _tag: "Rendered"; readonly id: number; readonly html: string; readonly failure?: string }
  /** The HTML was longer than a render may answer (RenderJob.MAX_HTML_CHARS). */
  | { readonly _tag: "TooLarge"; readonly id: number }
