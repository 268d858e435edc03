// The gpgsig header helpers are pure domain code (@kiln/domain/signing/SignedCommitObject); they are tested
// here, next to the real-git checks in CommitSigning.test.ts that show git reads what they write.
import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import fc from "fast-check"
import { splitSignature, withSignature } from "@kiln/domain/signing/SignedCommitObject"

const headers = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@x> 1700000000 +0000\ncommitter A <a@x> 1700000000 +0000\n"
const signature = "-----BEGIN PGP SIGNATURE-----\n\nAAAA\nBBBB\n=CCCC\n-----END PGP SIGNATURE-----\n"

describe("withSignature", () => {
  it("puts the gpgsig header after the other headers, continuation lines indented by one space", () => {
    assert.strictEqual(
      withSignature(`${headers}\nmessage\n`, signature),
      `${headers}gpgsig -----BEGIN PGP SIGNATURE-----\n \n AAAA\n BBBB\n =CCCC\n -----END PGP SIGNATURE-----\n\nmessage\n`
    )
  })

  it("names the header gpgsig-sha256 in SHA-256 repositories", () => {
    assert.isTrue(withSignature(`${headers}\nmessage\n`, signature, "sha256").includes("\ngpgsig-sha256 -----BEGIN"))
  })
})

describe("splitSignature", () => {
  it("gives no signature and the object unchanged for an unsigned commit", () => {
    const raw = `${headers}\nmessage\n\ngpgsig not a header\n`
    assert.deepStrictEqual(splitSignature(raw), { payload: raw, signature: Option.none() })
  })

  it("keeps headers after the signature and other headers' continuation lines in the payload", () => {
    const mergetag = "mergetag object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n type commit\n \n tag v1\n"
    const raw = `${headers}${mergetag}gpgsig-sha256 -----BEGIN PGP SIGNATURE-----\n \n AAAA\n -----END PGP SIGNATURE-----\nchange-id xyz\n\nno newline at the end`
    assert.deepStrictEqual(splitSignature(raw), {
      payload: `${headers}${mergetag}change-id xyz\n\nno newline at the end`,
      signature: Option.some("-----BEGIN PGP SIGNATURE-----\n\nAAAA\n-----END PGP SIGNATURE-----\n")
    })
  })

  it("undoes withSignature for any message and armored signature", () => {
    const line = fc.string({ unit: fc.constantFrom("a", "Z", "0", "+", "/", "=", " ", "-") })
    fc.assert(
      fc.property(fc.string(), fc.array(line), (message, signatureLines) => {
        const payload = `${headers}\n${message}`
        const armored = [...signatureLines, "-----END PGP SIGNATURE-----"].map((l) => `${l}\n`).join("")
        const split = splitSignature(withSignature(payload, armored))
        return split.payload === payload && Option.getOrNull(split.signature) === armored
      })
    )
  })
})
