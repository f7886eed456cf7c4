import { describe, expect, it } from 'vitest';
import { addressProblem, eip55Checksum, keccak256 } from '../../src/domain/crypto-address.js';

describe('keccak256', () => {
  const digest = (text: string) => Buffer.from(keccak256(Buffer.from(text, 'utf8'))).toString('hex');

  // Keccak-256 known answers (Ethereum's padding: SHA3-256 of the empty input is a7ffc6f8…, not this).
  it.each([
    ['the empty input', '', 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470'],
    ['"abc"', 'abc', '4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45'],
    [
      'the quick brown fox',
      'The quick brown fox jumps over the lazy dog',
      '4d741b6f1eb29cb2a9b9911c82f56fa8d73b04959d3d9d222895df6c0b28aa15',
    ],
  ])('matches the known digest of %s', (_name, text, hex) => {
    expect(digest(text)).toBe(hex);
  });
});

describe('addressProblem', () => {
  // Every checksummed address EIP-55 publishes: all caps, all lower and mixed case.
  it.each([
    '0x52908400098527886E0F7030069857D2E4169EE7',
    '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
    '0xde709f2102306220921060314715629080e2fb77',
    '0x27b1fdb04752bbc536007a920d24acb045561c26',
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
  ])('computes the EIP-55 checksum %s (vectors from the EIP)', (checksummed) => {
    expect(eip55Checksum(`0x${checksummed.slice(2).toLowerCase()}`)).toBe(checksummed);
    expect(eip55Checksum(`0x${checksummed.slice(2).toUpperCase()}`)).toBe(checksummed);
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
