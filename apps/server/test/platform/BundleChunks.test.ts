/**
 * The bundle's server keeps the markdown pipeline out of its own process: renders run in render
 * processes (RenderProcess.js, RenderThread.js), and the pipeline loaded into the server at its
 * first render held the event loop ~170 ms and added ~20 MB.
 */
import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { serverEntry } from "../../build/ServerBundle.ts"

const dist = dirname(serverEntry)

/** The chunks a chunk of `dist` imports, statically or dynamically. */
const importsOf = (code: string): ReadonlyArray<string> =>
  [...code.matchAll(/(?:from|import)\s*\(?\s*"\.\/([^"]+\.js)"/g)].flatMap((match) => match[1] === undefined ? [] : [match[1]])

/** Every chunk `entry` can load, itself included. */
const reachable = (entry: string): ReadonlyMap<string, string> => {
  const found = new Map<string, string>()
  const visit = (chunk: string) => {
    if (found.has(chunk)) return
    const code = readFileSync(join(dist, chunk), "utf8")
    found.set(chunk, code)
    importsOf(code).forEach(visit)
  }
  visit(entry)
  return found
}

describe("the server bundle", () => {
  it("loads the markdown pipeline in render processes only", () => {
    const server = reachable("main.js")
    // The lazily imported renderer pool is reached, so the walk follows dynamic imports.
    assert.isTrue([...server.values()].some((code) => code.includes("markdown text is")))
    const withPipeline = [...server].filter(([, code]) => code.includes("micromark")).map(([chunk]) => chunk)
    assert.deepStrictEqual(withPipeline, [])
    assert.isTrue(readFileSync(join(dist, "RenderThread.js"), "utf8").includes("micromark"))
  })
})
