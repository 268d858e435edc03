/** What git-lfs names an object by: the SHA-256 of its content (lower-case hex) and its size. */

export interface LfsPointer {
  readonly oid: string
  readonly size: number
}

const oidPattern = /^[0-9a-f]{64}$/

export const isValidOid = (oid: string): boolean => oidPattern.test(oid)

/** Forgejo's `Pointer.IsValid`: a SHA-256 in hex and a size that is not negative. */
export const isValidPointer = (pointer: LfsPointer): boolean =>
  isValidOid(pointer.oid) && Number.isSafeInteger(pointer.size) && pointer.size >= 0
