/**
 * JSON text serialized from a value of type `A`, with `A` kept in its type: a page can be put
 * together from texts serialized (and kept) earlier, and still be checked against the schema of
 * what the route answers (PlainJsonResponse).
 */
declare const serializedFrom: unique symbol

export type SerializedJson<A> = string & { readonly [serializedFrom]: A }

export const serialize = <A>(value: A): SerializedJson<A> => JSON.stringify(value) as SerializedJson<A>

/** The array of `items`, as `serialize` would give it. */
export const serializedArray = <A>(items: ReadonlyArray<SerializedJson<A>>): SerializedJson<ReadonlyArray<A>> =>
  `[${items.join(",")}]` as SerializedJson<ReadonlyArray<A>>
