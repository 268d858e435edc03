/**
 * Forgejo's object counts (`gitea_users`, `gitea_repositories`, …, modules/metrics/collector.go)
 * for what Kiln has: one statement of counts, reused for a few seconds so that frequent scrapes do
 * not count the tables again each time. Counts of what Kiln does not have (issues, stars, …) are
 * left out rather than reported as zero.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { Gauge, type Registry } from "prom-client"
import { KILN_VERSION } from "../KilnVersion.ts"

const REUSE_MILLIS = 5_000

const counted = {
  users: ["Number of Users", "SELECT count(*) FROM users WHERE kind = 'individual'"],
  organizations: ["Number of Organizations", "SELECT count(*) FROM users WHERE kind = 'organization'"],
  repositories: ["Number of Repositories", "SELECT count(*) FROM repositories"],
  mirrors: ["Number of Mirrors", "SELECT count(*) FROM repositories WHERE is_mirror"],
  releases: ["Number of Releases", "SELECT count(*) FROM releases"],
  attachments: ["Number of Attachments", "SELECT count(*) FROM attachments"],
  publickeys: ["Number of PublicKeys", "SELECT count(*) FROM public_keys"],
  teams: ["Number of Teams", "SELECT count(*) FROM teams"],
  webhooks: ["Number of Webhooks", "SELECT count(*) FROM webhooks"]
} as const

type Name = keyof typeof counted

const statement = `SELECT ${Object.entries(counted).map(([name, [, query]]) => `(${query})::int AS ${name}`).join(", ")}`

/** Registers the gauges; their values are read from the database when the registry is scraped. */
export const register = (registry: Registry) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const context = yield* Effect.context<never>()
    let last: { readonly at: number; readonly counts: Promise<Record<Name, number>> } | undefined
    const counts = () => {
      if (last === undefined || Date.now() - last.at > REUSE_MILLIS) {
        const counts = Effect.runPromiseWith(context)(
          Effect.flatMap(sql.unsafe<Record<Name, number>>(statement), (rows) =>
            rows[0] === undefined ? Effect.die(new Error("the object counts returned no row")) : Effect.succeed(rows[0]))
        )
        last = { at: Date.now(), counts }
        counts.catch(() => (last = undefined))
      }
      return last.counts
    }
    for (const [name, [help]] of Object.entries(counted) as ReadonlyArray<[Name, readonly [string, string]]>) {
      new Gauge({
        name: `gitea_${name}`,
        help,
        registers: [registry],
        async collect() {
          this.set((await counts())[name])
        }
      })
    }
    new Gauge({ name: "gitea_build_info", help: "Build information", labelNames: ["version"] as const, registers: [registry] })
      .set({ version: KILN_VERSION }, 1)
  })
