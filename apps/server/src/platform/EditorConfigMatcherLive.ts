/**
 * EditorConfigMatcher through the maintained `editorconfig` library (EditorConfig's own core for
 * JavaScript): its `matcher` parses the file as the root `.editorconfig` of a virtual directory and
 * applies the specification's globbing (`*`, `**`, `{a,b}`, ranges, later sections win). It is
 * imported with the first lookup: with its WebAssembly INI parser and its dependencies it holds
 * ~8 MB that only editorconfig requests need.
 */
import { Buffer } from "node:buffer"
import { Effect, Layer } from "effect"
import { Invalid } from "@kiln/domain/errors"
import { EditorConfigMatcher } from "@kiln/domain/repo/EditorConfig"

/** A directory that exists nowhere: the library only joins paths, it never reads this one. */
const ROOT = "/kiln-editorconfig-root"

export const layer = Layer.effect(
  EditorConfigMatcher,
  Effect.map(Effect.cached(Effect.promise(() => import("editorconfig"))), (library) =>
    EditorConfigMatcher.of({
      propertiesFor: (config, fileName) =>
        Effect.flatMap(library, ({ matcher }) =>
          Effect.try({
            try: () => {
              const match = matcher({ root: ROOT }, Buffer.from(config.buffer, config.byteOffset, config.byteLength))
              return { ...match(`${ROOT}/${fileName}`) }
            },
            catch: (error) => new Invalid({ message: `cannot read .editorconfig: ${error instanceof Error ? error.message : String(error)}` })
          }))
    }))
)
