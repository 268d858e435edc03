/**
 * EditorConfigMatcher through the maintained `editorconfig` library (EditorConfig's own core for
 * JavaScript): its `matcher` parses the file as the root `.editorconfig` of a virtual directory and
 * applies the specification's globbing (`*`, `**`, `{a,b}`, ranges, later sections win).
 */
import { Buffer } from "node:buffer"
import { Effect, Layer } from "effect"
import { matcher } from "editorconfig"
import { Invalid } from "@kiln/domain/errors"
import { EditorConfigMatcher } from "@kiln/domain/repo/EditorConfig"

/** A directory that exists nowhere: the library only joins paths, it never reads this one. */
const ROOT = "/kiln-editorconfig-root"

export const layer = Layer.succeed(
  EditorConfigMatcher,
  EditorConfigMatcher.of({
    propertiesFor: (config, fileName) =>
      Effect.try({
        try: () => {
          const match = matcher({ root: ROOT }, Buffer.from(config.buffer, config.byteOffset, config.byteLength))
          return { ...match(`${ROOT}/${fileName}`) }
        },
        catch: (error) => new Invalid({ message: `cannot read .editorconfig: ${error instanceof Error ? error.message : String(error)}` })
      })
  })
)
