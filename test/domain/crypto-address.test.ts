import { describe, expect, it } from 'vitest';
import { addressProblem, eip55Checksum } from '../../src/domain/crypto-address.js';
import { keccak256 } from '../../src/domain/keccak256.js';

describe('keccak256', () => {
  it('matches the known digest of the empty input', () => {
    expect(Buffer.from(keccak256(new Uint8Array())).toString('hex')).toBe(
      'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    );
  });
});

describe('addressProblem', () => {
  it('computes EIP-55 checksums (vectors from the EIP)', () => {
    expect(eip55Checksum('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toBe('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
    expect(eip55Checksum('0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359')).toBe('0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359');
  });

  it.each([
    ['ETHEREUM', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['POLYGON', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed'],
    ['BASE', '0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED'],
    ['TRON', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'],
    ['BITCOIN', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
    ['BITCOIN', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy'],
    ['BITCOIN', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'],
    ['BITCOIN', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0'],
    ['SOLANA', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'],
  ] as const)('accepts %s %s', (network, address) => {
    expect(addressProblem(network, address)).toBeUndefined();
  });

  it.each([
    ['ETHEREUM', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', /EIP-55/],
    ['ETHEREUM', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae', /40 hexadecimal/],
    ['CELO', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', /0x/],
    ['TRON', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u', /checksum/],
    ['TRON', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', /starting with T/],
    ['BITCOIN', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb', /checksum/],
    ['BITCOIN', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5', /checksum/],
    ['BITCOIN', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', /Bitcoin/],
    ['SOLANA', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4w', /32-byte/],
    ['SOLANA', '0OIl', /base58/],
  ] as const)('refuses %s %s', (network, address, why) => {
    expect(addressProblem(network, address)).toMatch(why);
  });
});
