/**
 * Objects read from rows, handed out again while those rows are unchanged. Every row version carries
 * the id of the transaction that wrote it (`xmin`), and others see only the last version a committed
 * transaction left of a row, so the same row with the same `xmin` holds the same data. A caller that
 * keys work on the object (RepositoryAnswers keeps a repository's JSON answer on it) then does that
 * work once per change, not once per read.
 *
 * Nothing read inside a transaction is kept: a transaction that writes a row twice makes two versions
 * with its one `xmin`, and a read between the writes would be handed out for the second.
 */
export class UnchangedRows<A> {
  readonly #kept = new Map<number, { readonly versions: string; readonly value: A }>()
  readonly #maxEntries: number

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries
  }

  /**
   * The object kept for `id` when it was read from rows of the same `versions` (their `xmin`s,
   * joined), otherwise `read()`, kept when `keep` (outside a transaction).
   */
  same(id: number, versions: string, read: () => A, keep: boolean): A {
    const known = this.#kept.get(id)
    if (known !== undefined && known.versions === versions) return known.value
    const value = read()
    if (keep) {
      // The oldest kept goes first (a Map iterates in insertion order).
      if (known === undefined && this.#kept.size >= this.#maxEntries) this.#kept.delete(this.#kept.keys().next().value ?? id)
      this.#kept.set(id, { versions, value })
    }
    return value
  }
}
