/** What the process writes to standard output while an effect runs: the access log, for one. */
import { Effect } from "effect"

/** `effect`'s value and the standard output written meanwhile (the access log flushes within 20 ms: waited for). */
export const capturedStdout = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    const write = process.stdout.write.bind(process.stdout)
    process.stdout.write = ((chunk: string | Uint8Array) => {
      lines.push(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk))
      return true
    }) as typeof process.stdout.write
    try {
      const value = yield* effect
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
      return { value, output: lines.join("") }
    } finally {
      process.stdout.write = write
    }
  })
