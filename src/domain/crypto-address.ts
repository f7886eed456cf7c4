/**
 * Address formats per network, checked structurally and by checksum so a typo cannot become a
 * refund destination:
 * - EVM networks (ETHEREUM, POLYGON, BASE, OPTIMISM, CELO): 0x + 40 hex; all-lower or all-upper hex
 *   is accepted as is, mixed case must carry a valid EIP-55 checksum.
 * - TRON: base58check, 25 bytes, version byte 0x41 (addresses start with T).
 * - BITCOIN: base58check P2PKH (version 0x00) or P2SH (0x05), or a segwit bech32 (v0) / bech32m (v1+)
 *   address with the bc human-readable part.
 * - SOLANA: base58 of a 32-byte public key.
 *
 * @module domain/crypto-address
 */
import { createHash } from 'node:crypto';
import { keccak_256 } from '@noble/hashes/sha3.js';

export const NETWORK_IDS = ['POLYGON', 'ETHEREUM', 'TRON', 'BASE', 'OPTIMISM', 'BITCOIN', 'SOLANA', 'CELO'] as const;
export type NetworkId = (typeof NETWORK_IDS)[number];

/** The value as a NetworkId, or null when it is not one. */
export const asNetworkId = (v: unknown): NetworkId | null =>
  typeof v === 'string' && (NETWORK_IDS as readonly string[]).includes(v) ? (v as NetworkId) : null;
export const EVM_NETWORKS: ReadonlySet<NetworkId> = new Set(['POLYGON', 'ETHEREUM', 'BASE', 'OPTIMISM', 'CELO']);

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export function base58Decode(text: string): Uint8Array | undefined {
  if (text.length === 0) return undefined;
  let n = 0n;
  for (const ch of text) {
    const v = BASE58.indexOf(ch);
    if (v < 0) return undefined;
    n = n * 58n + BigInt(v);
  }
  const bytes: number[] = [];
  while (n > 0n) {
    bytes.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  for (const ch of text) {
    if (ch !== '1') break;
    bytes.unshift(0);
  }
  return Uint8Array.from(bytes);
}

const sha256 = (b: Uint8Array): Buffer => createHash('sha256').update(b).digest();

/** The payload (version byte included) of a base58check string, or undefined when the checksum fails. */
function base58CheckPayload(text: string): Uint8Array | undefined {
  const bytes = base58Decode(text);
  if (!bytes || bytes.length < 5) return undefined;
  const payload = bytes.subarray(0, bytes.length - 4);
  const check = sha256(sha256(payload)).subarray(0, 4);
  return Buffer.from(bytes.subarray(bytes.length - 4)).equals(check) ? payload : undefined;
}

/**
 * Keccak-256 with the original Keccak padding Ethereum uses (not SHA3-256, the only variant
 * node:crypto offers), from @noble/hashes: audited, constant-time, no dependencies.
 */
export const keccak256 = (input: Uint8Array): Uint8Array => keccak_256(input);

export function eip55Checksum(address: string): string {
  const hex = address.slice(2).toLowerCase();
  const hash = Buffer.from(keccak256(Buffer.from(hex, 'ascii'))).toString('hex');
  let out = '0x';
  for (let i = 0; i < 40; i++) out += parseInt(hash[i]!, 16) >= 8 ? hex[i]!.toUpperCase() : hex[i]!;
  return out;
}

function evmProblem(address: string): string | undefined {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return 'must be 0x followed by 40 hexadecimal characters';
  const body = address.slice(2);
  if (body === body.toLowerCase() || body === body.toUpperCase()) return undefined;
  return eip55Checksum(address) === address ? undefined : 'mixed-case address fails its EIP-55 checksum';
}

const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BECH32_GEN = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values: number[]): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= BECH32_GEN[i]!;
  }
  return chk >>> 0;
}

function segwitProblem(address: string): string | undefined {
  if (address !== address.toLowerCase() && address !== address.toUpperCase()) return 'bech32 address mixes cases';
  const a = address.toLowerCase();
  const sep = a.lastIndexOf('1');
  if (a.slice(0, sep) !== 'bc' || a.length > 90) return 'bech32 address must use the bc prefix';
  const data: number[] = [];
  for (const ch of a.slice(sep + 1)) {
    const v = BECH32_CHARSET.indexOf(ch);
    if (v < 0) return 'bech32 address has a character outside its alphabet';
    data.push(v);
  }
  if (data.length < 7) return 'bech32 address is too short';
  const hrp = [...'bc'].map((c) => c.charCodeAt(0));
  const check = polymod([...hrp.map((c) => c >> 5), 0, ...hrp.map((c) => c & 31), ...data]);
  const version = data[0]!;
  if (version > 16) return 'unknown segwit version';
  if (check !== (version === 0 ? 1 : 0x2bc830a3)) return 'bech32 checksum fails';
  // Regroup the 5-bit words (without version and checksum) into bytes.
  let acc = 0;
  let bits = 0;
  const program: number[] = [];
  for (const v of data.slice(1, -6)) {
    acc = (acc << 5) | v;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      program.push((acc >> bits) & 0xff);
    }
  }
  if (bits >= 5 || (acc & ((1 << bits) - 1)) !== 0) return 'bech32 address has invalid padding';
  if (program.length < 2 || program.length > 40) return 'segwit program has an invalid length';
  if (version === 0 && program.length !== 20 && program.length !== 32) return 'segwit v0 program must be 20 or 32 bytes';
  return undefined;
}

function bitcoinProblem(address: string): string | undefined {
  if (/^bc1/i.test(address)) return segwitProblem(address);
  if (!/^[13]/.test(address)) return 'must be a base58 (1…, 3…) or bech32 (bc1…) Bitcoin address';
  const payload = base58CheckPayload(address);
  if (!payload) return 'base58check checksum fails';
  if (payload.length !== 21 || (payload[0] !== 0x00 && payload[0] !== 0x05)) return 'not a P2PKH or P2SH address';
  return undefined;
}

function tronProblem(address: string): string | undefined {
  if (!/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(address)) return 'must be a 34-character base58 address starting with T';
  const payload = base58CheckPayload(address);
  if (!payload) return 'base58check checksum fails';
  return payload.length === 21 && payload[0] === 0x41 ? undefined : 'not a TRON address';
}

function solanaProblem(address: string): string | undefined {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address)) return 'must be a base58 public key (32 to 44 characters)';
  return base58Decode(address)?.length === 32 ? undefined : 'must decode to a 32-byte public key';
}

/** Why `address` is not valid on `network`, or undefined when it is. */
export function addressProblem(network: NetworkId, address: string): string | undefined {
  if (EVM_NETWORKS.has(network)) return evmProblem(address);
  switch (network) {
    case 'TRON':
      return tronProblem(address);
    case 'BITCOIN':
      return bitcoinProblem(address);
    case 'SOLANA':
      return solanaProblem(address);
    default:
      return 'unknown network';
  }
}
