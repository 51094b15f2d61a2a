/**
 * Stellar account ids ("strkeys", SEP-23) as Komunitin names its accounts' signing keys: `G…`, 56 base32 characters
 * (RFC 4648, no padding) over a version byte (6 << 3 for an ed25519 public key), the 32-byte key and a CRC16-XModem
 * checksum of both, little-endian. Komunitin's server-to-server tokens carry one as `sub` (decisions D16).
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
const VERSION_ED25519_PUBLIC = 6 << 3
const KEY_BYTES = 32
const STRKEY_LENGTH = 56

/** CRC16-XModem (polynomial 0x1021, initial value 0), as SEP-23 checksums strkeys. */
export const crc16XModem = (bytes: Uint8Array): number => {
  let crc = 0
  for (const byte of bytes) {
    crc ^= byte << 8
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
    }
  }
  return crc
}

const base32Encode = (bytes: Uint8Array): string => {
  let out = ""
  let buffer = 0
  let bits = 0
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31]
  return out
}

/** The bytes of unpadded base32 text, or undefined for a character outside the alphabet or stray trailing bits. */
const base32Decode = (text: string): Uint8Array | undefined => {
  const out: Array<number> = []
  let buffer = 0
  let bits = 0
  for (const char of text) {
    const value = ALPHABET.indexOf(char)
    if (value < 0) return undefined
    buffer = ((buffer << 5) | value) & 0xffff
    bits += 5
    if (bits >= 8) {
      out.push((buffer >>> (bits - 8)) & 0xff)
      bits -= 8
    }
  }
  // A canonical encoding leaves only zero bits over.
  if ((buffer & ((1 << bits) - 1)) !== 0) return undefined
  return Uint8Array.from(out)
}

/** The raw ed25519 public key of a Stellar account id (`G…`), or undefined when it is not a valid one. */
export const decodeStellarPublicKey = (strkey: string): Uint8Array | undefined => {
  if (strkey.length !== STRKEY_LENGTH) return undefined
  const bytes = base32Decode(strkey)
  if (bytes === undefined || bytes.length !== 1 + KEY_BYTES + 2 || bytes[0] !== VERSION_ED25519_PUBLIC) {
    return undefined
  }
  const body = bytes.subarray(0, 1 + KEY_BYTES)
  const checksum = bytes[1 + KEY_BYTES]! | (bytes[2 + KEY_BYTES]! << 8)
  return crc16XModem(body) === checksum ? Uint8Array.from(body.subarray(1)) : undefined
}

/** The Stellar account id (`G…`) of a raw 32-byte ed25519 public key. */
export const encodeStellarPublicKey = (raw: Uint8Array): string => {
  if (raw.length !== KEY_BYTES) throw new Error("An ed25519 public key has 32 bytes")
  const body = new Uint8Array(1 + KEY_BYTES)
  body[0] = VERSION_ED25519_PUBLIC
  body.set(raw, 1)
  const checksum = crc16XModem(body)
  const bytes = new Uint8Array(body.length + 2)
  bytes.set(body)
  bytes[body.length] = checksum & 0xff
  bytes[body.length + 1] = checksum >>> 8
  return base32Encode(bytes)
}

/** The pinned keys of a partner's `credentials.komunitin_public_keys`: comma- or whitespace-separated strkeys. */
export const pinnedKeysOf = (value: string | undefined): ReadonlyArray<string> =>
  (value ?? "").split(/[\s,]+/).filter((key) => key !== "")
