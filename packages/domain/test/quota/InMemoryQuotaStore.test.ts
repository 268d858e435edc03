import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { QuotaStore } from "../../src/quota/QuotaStore.ts"
import type { QuotaAttachment } from "../../src/quota/UsedAssets.ts"
import { inMemoryQuotaStoreLayer } from "./InMemoryQuotaStore.ts"
import { quotaStoreContract } from "./QuotaStoreContract.ts"

quotaStoreContract("in memory", inMemoryQuotaStoreLayer(), { users: [7, 3] })

describe("in-memory asset lists", () => {
  const attachment = (id: number, size: number): QuotaAttachment => ({
    id,
    name: `file-${id}`,
    size,
    repository: { owner: "org", name: "repo" },
    container: { _tag: "Issue", issueIndex: 1, isPull: false }
  })
  const layer = inMemoryQuotaStoreLayer(new Map([[1, { attachments: [attachment(1, 5), attachment(2, 9), attachment(3, 5)] }]]))

  it.effect("are biggest first, ties by id, paged with the full total", () =>
    Effect.gen(function*() {
      const store = yield* QuotaStore
      const first = yield* store.listAttachments(1, { page: 1, limit: 2 })
      assert.deepStrictEqual(first.items.map((a) => a.id), [2, 1])
      assert.strictEqual(first.total, 3)
      assert.deepStrictEqual((yield* store.listAttachments(1, { page: 2, limit: 2 })).items.map((a) => a.id), [3])
      assert.deepStrictEqual(yield* store.listAttachments(1, { page: 3, limit: 2 }), { items: [], total: 3 })
    }).pipe(Effect.provide(layer)))
})
