/**
 * Which text can go out as an HTTP header value: Go's `httpguts.ValidHeaderFieldValue`, which
 * Forgejo's client applies when it sends a delivery (RFC 9110 field-value: no control character
 * but horizontal tab). Text beyond ASCII goes out as its UTF-8 bytes, as Go sends a string's bytes.
 */

const controlCharacter = /[\u0000-\u0008\u000a-\u001f\u007f]/

/** Whether `value` can be sent as a header value. */
export const isSendableHeaderValue = (value: string): boolean => !controlCharacter.test(value)

/** What a refused header value is reported as, naming the header as Go's client does. */
export const unsendableHeaderMessage = (name: string): string => `net/http: invalid header field value for "${name}"`
