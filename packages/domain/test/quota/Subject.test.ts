import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import fc from "fast-check"
import { covers, isWikiSubject, leavesOf, overlaps, parseSubject, parseSubjects, Subject, subjects } from "../../src/quota/Subject.ts"
import { usageLeaves } from "../../src/quota/Usage.ts"
import * as Arb from "./QuotaArbitraries.ts"

describe("Subject", () => {
  it("is exactly the spec's thirteen strings and Forgejo's spelling of the wiki subject", () => {
    assert.deepStrictEqual([...subjects], [
      "size:all",
      "size:repos:all",
      "size:repos:public",
      "size:repos:private",
      "size:git:all",
      "size:git:lfs",
      "size:assets:all",
      "size:assets:attachments:all",
      "size:assets:attachments:issues",
      "size:assets:attachments:releases",
      "size:assets:artifacts",
      "size:assets:packages:all",
      "size:wiki",
      "size:assets:wiki"
    ])
  })

  it("every subject parses to itself and passes the schema", () => {
    fc.assert(fc.property(Arb.subject, (s) => {
      assert.strictEqual(Effect.runSync(parseSubject(s)), s)
      assert.isTrue(Schema.is(Subject)(s))
    }))
  })

  it("an unknown subject string is always Invalid, with Forgejo's text", () => {
    fc.assert(fc.property(Arb.unknownSubject, (s) => {
      const error = Effect.runSync(Effect.flip(parseSubject(s)))
      assert.strictEqual(error._tag, "Invalid")
      assert.strictEqual(error.message, `unrecognized quota limit subject: [subject: ${s}]`)
      assert.isFalse(Schema.is(Subject)(s))
    }))
  })

  it("Forgejo's `none` is not a subject here", () => {
    for (const s of ["none"]) {
      assert.strictEqual(
        Effect.runSync(Effect.flip(parseSubject(s))).message,
        `unrecognized quota limit subject: [subject: ${s}]`
      )
    }
  })

  it("a list fails on its first unknown subject and otherwise keeps order and repeats", () => {
    fc.assert(fc.property(fc.array(Arb.subject), Arb.unknownSubject, fc.array(fc.string()), (good, bad, rest) => {
      assert.deepStrictEqual(Effect.runSync(parseSubjects(good)), good)
      const error = Effect.runSync(Effect.flip(parseSubjects([...good, bad, ...rest])))
      assert.strictEqual(error.message, `unrecognized quota limit subject: [subject: ${bad}]`)
    }))
  })

  it("the leaf sets form a tree: any two are nested or disjoint", () => {
    fc.assert(fc.property(Arb.subject, Arb.subject, (a, b) => {
      const shared = leavesOf(a).filter((leaf) => leavesOf(b).includes(leaf))
      const nested = shared.length === leavesOf(a).length || shared.length === leavesOf(b).length
      assert.isTrue(shared.length === 0 || nested)
    }))
  })

  it("size:all covers every leaf once and every subject but the wiki", () => {
    assert.deepStrictEqual([...leavesOf("size:all")].sort(), [...usageLeaves].sort())
    for (const s of subjects) assert.strictEqual(covers("size:all", s), !isWikiSubject(s))
    assert.deepStrictEqual(leavesOf("size:wiki"), [])
    assert.deepStrictEqual(leavesOf("size:assets:wiki"), [])
  })

  it("covers is reflexive and transitive, and means leaf inclusion", () => {
    fc.assert(fc.property(Arb.subject, Arb.subject, Arb.subject, (a, b, c) => {
      assert.isTrue(covers(a, a))
      if (covers(a, b) && covers(b, c)) assert.isTrue(covers(a, c))
      if (!isWikiSubject(b)) {
        assert.strictEqual(covers(a, b), leavesOf(b).every((leaf) => leavesOf(a).includes(leaf)))
      }
    }))
  })

  it("two different subjects cover each other only when they measure the same data", () => {
    // size:git:all and size:all differ (assets); no two distinct subjects have equal leaf sets.
    fc.assert(fc.property(Arb.subject, Arb.subject, (a, b) => {
      // The wiki subject's two spellings are one subject.
      if (a !== b) assert.strictEqual(covers(a, b) && covers(b, a), isWikiSubject(a) && isWikiSubject(b))
    }))
  })

  it("overlaps is symmetric and means sharing data (or being the same subject)", () => {
    fc.assert(fc.property(Arb.subject, Arb.subject, (a, b) => {
      assert.strictEqual(overlaps(a, b), overlaps(b, a))
      const share = leavesOf(a).some((leaf) => leavesOf(b).includes(leaf))
      assert.strictEqual(overlaps(a, b), a === b || share || (isWikiSubject(a) && isWikiSubject(b)))
    }))
  })

  it("the tree of the spec's table", () => {
    assert.isTrue(covers("size:repos:all", "size:repos:private"))
    assert.isTrue(covers("size:git:all", "size:repos:public"))
    assert.isTrue(covers("size:git:all", "size:git:lfs"))
    assert.isFalse(covers("size:repos:all", "size:git:lfs"))
    assert.isTrue(covers("size:assets:all", "size:assets:attachments:releases"))
    assert.isTrue(covers("size:assets:attachments:all", "size:assets:attachments:issues"))
    assert.isFalse(covers("size:assets:attachments:all", "size:assets:artifacts"))
    assert.isTrue(covers("size:assets:all", "size:assets:packages:all"))
    assert.isFalse(overlaps("size:git:all", "size:assets:all"))
    assert.isFalse(overlaps("size:wiki", "size:all"))
    assert.isFalse(overlaps("size:assets:wiki", "size:all"))
    assert.isTrue(covers("size:wiki", "size:assets:wiki"))
    assert.isTrue(covers("size:assets:wiki", "size:wiki"))
  })
})
