/** Every API path lives under this prefix (spec part 9). */
export const API_PREFIX = "/api/v1"
