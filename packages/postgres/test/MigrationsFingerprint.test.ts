/** The recorded digest of the migrations is the digest of the migration files as they are. */
import { assert, describe, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { MIGRATIONS_FINGERPRINT } from "../src/migrations/Fingerprint.ts"

const directory = fileURLToPath(new URL("../src/migrations/", import.meta.url))

describe("MIGRATIONS_FINGERPRINT", () => {
  it("is the digest of the migration files (update src/migrations/Fingerprint.ts to the value named when a migration changed)", () => {
    const hash = createHash("sha256")
    for (const name of readdirSync(directory).filter((file) => /^\d{4}_.*\.ts$/.test(file)).sort()) {
      hash.update(`${name}\0`)
      hash.update(readFileSync(`${directory}${name}`))
      hash.update("\0")
    }
    assert.strictEqual(MIGRATIONS_FINGERPRINT, hash.digest("hex").slice(0, 16))
  })
})
