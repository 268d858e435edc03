/** What the main thread and the editorconfig matching thread send each other. */
export interface MatchJob {
  readonly id: number
  readonly config: Uint8Array
  readonly fileName: string
}

export type MatchReply =
  /** The thread has loaded the library: the time limit of a job runs from when it is sent after this. */
  | { readonly _tag: "Ready" }
  | { readonly _tag: "Matched"; readonly id: number; readonly properties: Readonly<Record<string, unknown>> }
  | { readonly _tag: "Failed"; readonly id: number; readonly message: string }
