/**
 * Render throughput of a ~20 KB GitHub-flavoured README: the renderer alone, beside the bare
 * unified pipeline (remark-parse, remark-gfm, remark-rehype, rehype-sanitize, rehype-stringify)
 * and markdown-it in the same run; then through the worker pool with 1 and 4 concurrent renders,
 * with the main thread's event-loop delay meanwhile, and repeated renders answered by the cache.
 * The server's `pnpm bench` calls `runRenderBench` and adds the HTTP figures.
 *
 * Run by itself: npx pnpm@12.21.0 exec node packages/markdown/bench/renderBench.ts
 */
import { renderRequest } from "@kiln/domain/markdown/RenderRequest"
import MarkdownIt from "markdown-it"
import { readFileSync } from "node:fs"
import { availableParallelism } from "node:os"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import rehypeSanitize from "rehype-sanitize"
import rehypeStringify from "rehype-stringify"
import remarkGfm from "remark-gfm"
import remarkParse from "remark-parse"
import remarkRehype from "remark-rehype"
import { unified } from "unified"
import { renderMarkdown } from "../src/Pipeline.ts"
import { makeRenderCache, renderCacheKey } from "../src/RenderCache.ts"
import { makeWorkerPool } from "../src/worker/WorkerPool.ts"

export interface RenderBenchOptions {
  /** How long each measurement runs. */
  readonly millis?: number
  readonly workers?: number
}

export interface RenderBenchFigures {
  readonly documentBytes: number
  readonly cores: number
  /** Documents per second, in-process on the main thread. */
  readonly renderer: number
  readonly bareUnified: number
  readonly markdownIt: number
  /** renderer time / bare unified time: the renderer's overhead (target <= 1.10). */
  readonly rendererVsBareUnified: number
  readonly markdownItVsRenderer: number
  /** Documents per second through the worker pool. */
  readonly pool1Client: number
  readonly pool4Clients: number
  /** pool4Clients / pool1Client (target >= 1.6 on 2 cores). */
  readonly concurrencyGain: number
  /** The main thread's event-loop delay while 4 clients render, in ms. */
  readonly eventLoopDelayP99Millis: number
  readonly eventLoopDelayMaxMillis: number
  /** Documents per second for repeated renders of the same text answered by the cache. */
  readonly cached: number
}

export const readmePath = fileURLToPath(new URL("./readme-20k.md", import.meta.url))
export const readme = (): string => readFileSync(readmePath, "utf8")

const rootUrl = "http://localhost:3000/"
const mentionable = new Set(["alice", "bob", "carol", "dave"])

/** Runs `once` repeatedly for `millis`; documents per second. */
const throughput = (millis: number, once: () => void): number => {
  let count = 0
  const start = performance.now()
  while (performance.now() - start < millis) {
    once()
    count++
  }
  return (count * 1000) / (performance.now() - start)
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}

/**
 * Throughput of each contestant as the median of interleaved rounds, so that a change in the
 * machine's load during the run shifts every contestant alike.
 */
const interleaved = (millis: number, rounds: number, contestants: ReadonlyArray<() => void>): Array<number> => {
  for (const once of contestants) for (let i = 0; i < 5; i++) once()
  const rates = contestants.map((): Array<number> => [])
  for (let round = 0; round < rounds; round++) {
    contestants.forEach((once, i) => rates[i]?.push(throughput(millis / rounds, once)))
  }
  return rates.map(median)
}

const poolThroughput = async (
  render: () => Promise<unknown>,
  clients: number,
  millis: number
): Promise<number> => {
  let count = 0
  const start = performance.now()
  await Promise.all(Array.from({ length: clients }, async () => {
    while (performance.now() - start < millis) {
      await render()
      count++
    }
  }))
  return (count * 1000) / (performance.now() - start)
}

const round = (value: number, digits = 1): number => Number(value.toFixed(digits))

export const runRenderBench = async (options: RenderBenchOptions = {}): Promise<RenderBenchFigures> => {
  const millis = options.millis ?? 7_000
  const text = readme()
  const request = renderRequest({ text, mode: "gfm", context: "owner/repo", wiki: false }, rootUrl)
  const bare = unified().use(remarkParse).use(remarkGfm).use(remarkRehype).use(rehypeSanitize).use(rehypeStringify).freeze()
  const markdownIt = new MarkdownIt({ linkify: true })

  const [renderer = 0, bareUnified = 0, markdownItRate = 0] = interleaved(millis, 7, [
    () => void renderMarkdown(request, mentionable),
    () => void bare.processSync(text),
    () => void markdownIt.render(text)
  ])

  const pool = makeWorkerPool({ size: options.workers, timeoutMillis: 30_000 })
  const names = [...mentionable]
  // A distinct text per render (an HTML comment the sanitizer drops), so nothing is cached.
  let unique = 0
  const renderInPool = () => pool.render({ ...request, text: `${text}\n<!-- ${unique++} -->\n` }, names)
  let pool1Client: number
  let pool4Clients: number
  const delay = monitorEventLoopDelay({ resolution: 1 })
  try {
    // Warm every worker's JIT first, as a long-running server's are.
    await Promise.all(Array.from({ length: pool.size * 10 }, renderInPool))
    pool1Client = await poolThroughput(renderInPool, 1, millis)
    delay.enable()
    pool4Clients = await poolThroughput(renderInPool, 4, millis)
    delay.disable()
  } finally {
    await pool.close()
  }

  const cache = makeRenderCache({ maxEntries: 16, maxChars: 8 * 1024 * 1024, ttlMillis: 60_000 })
  cache.set(renderCacheKey(request, mentionable), renderMarkdown(request, mentionable))
  const cached = throughput(millis, () => void cache.get(renderCacheKey(request, mentionable)))

  return {
    documentBytes: Buffer.byteLength(text),
    cores: availableParallelism(),
    renderer: round(renderer),
    bareUnified: round(bareUnified),
    markdownIt: round(markdownItRate),
    rendererVsBareUnified: round(bareUnified / renderer, 3),
    markdownItVsRenderer: round(markdownItRate / renderer, 2),
    pool1Client: round(pool1Client),
    pool4Clients: round(pool4Clients),
    concurrencyGain: round(pool4Clients / pool1Client, 2),
    eventLoopDelayP99Millis: round(delay.percentile(99) / 1e6, 2),
    eventLoopDelayMaxMillis: round(delay.max / 1e6, 2),
    cached: round(cached, 0)
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const figures = await runRenderBench()
  console.log(JSON.stringify(figures, null, 2))
}
