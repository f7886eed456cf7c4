/**
 * `borderd keys card-network`: organizations' card-network decryption keys (generate, import, list,
 * remove).
 *
 * @module cli/keys
 */
import type { CommandModule } from 'yargs';
import { generateCardNetworkKey, importCardNetworkKey, listKeys, removeCardNetworkKey } from '../inbound/keyring.js';
import { keystoreIntegrityFailure } from '../inbound/pkcs12.js';
import { CliExit, output, readCliFile, runWithContext, table, wholeNumber, withCommonOptions, type CommonArgs } from './context.js';

const cardNetworkCommand: CommandModule = {
  command: 'card-network',
  describe: 'Card-network decryption keys of organizations (generate, import, list, remove)',
  builder: (y) =>
    withCommonOptions(y)
      .command<CommonArgs & { org: string; bits: number; cn?: string }>(
        'generate',
        'Generate an RSA key pair; prints the public key and a CSR for the card network',
        (c) =>
          c
            .option('org', { type: 'string', demandOption: true, describe: 'organization id' })
            .option('bits', {
              type: 'number',
              default: 2048,
              coerce: wholeNumber('bits', 2048, 8192),
              describe: 'RSA modulus length (2048 to 8192)',
            })
            .option('cn', { type: 'string', describe: 'common name of the CSR subject' }),
        (args) =>
          runWithContext(args, async (ctx) => {
            const key = await generateCardNetworkKey(ctx, args.org, { bits: args.bits, ...(args.cn ? { commonName: args.cn } : {}) });
            output(args, key, () =>
              [
                `generated card-network key ${key.id} for ${key.organizationId} (RSA ${key.bits})`,
                `kid: ${key.kid}`,
                '',
                key.publicKey.trimEnd(),
                '',
                key.csr.trimEnd(),
              ].join('\n'),
            );
          }),
      )
      .command<CommonArgs & { org: string; privateKey: string; kid?: string; keystorePassword?: string }>(
        'import',
        'Import a private key: PEM or DER, PKCS#8 (also encrypted) or PKCS#1, or a PKCS#12 keystore (.p12/.pfx); kid defaults to its SHA-256 SPKI fingerprint',
        (c) =>
          c
            .option('org', { type: 'string', demandOption: true, describe: 'organization id' })
            .option('private-key', {
              type: 'string',
              demandOption: true,
              describe: 'file holding the private key, or a .p12/.pfx keystore',
            })
            .option('keystore-password', {
              type: 'string',
              describe:
                'password of a .p12/.pfx keystore or an encrypted key (default: BORDERD_KEY_PASSPHRASE, which stays out of the process list). ' +
                'A keystore whose key is only inside encrypted safe contents: openssl pkcs12 -in k.p12 -nocerts -nodes -out key.pem, then import key.pem',
            })
            .option('kid', {
              type: 'string',
              describe: 'the kid the card network sends for this key, when it is not the SPKI fingerprint',
            }),
        (args) =>
          runWithContext(args, async (ctx) => {
            const bytes = readCliFile(args.privateKey);
            const passphrase = args.keystorePassword ?? process.env.BORDERD_KEY_PASSPHRASE;
            const key = await importCardNetworkKey(ctx, args.org, bytes, {
              ...(args.kid ? { kid: args.kid } : {}),
              ...(passphrase !== undefined ? { passphrase } : {}),
            }).catch((err: unknown) => {
              // A wrong password or an altered keystore is bad usage: one line, exit 2.
              const failure = keystoreIntegrityFailure(err);
              throw failure ? new CliExit(2, `${args.privateKey}: ${failure.message}`) : err;
            });
            output(args, key, () => `imported card-network key ${key.id} for ${key.organizationId} (RSA ${key.bits})\nkid: ${key.kid}`);
          }),
      )
      .command<CommonArgs & { org?: string }>(
        'list',
        'List card-network keys',
        (c) => c.option('org', { type: 'string', describe: 'only this organization' }),
        (args) =>
          runWithContext(args, async (ctx) => {
            const keys = await listKeys(ctx, args.org);
            output(args, keys, () => table(keys, ['id', 'organizationId', 'kid', 'bits', 'source', 'createdAt']));
          }),
      )
      .command<CommonArgs & { kid: string; org?: string }>(
        'remove <kid>',
        'Remove a key by kid (or key id cnk_…); notifications for that kid then fail until a key for it is back',
        (c) =>
          c
            .positional('kid', { type: 'string', demandOption: true })
            .option('org', { type: 'string', describe: 'organization id, when the kid exists in several' }),
        (args) =>
          runWithContext(args, async (ctx) => {
            const key = await removeCardNetworkKey(ctx, args.kid, args.org);
            output(args, key, () => `removed card-network key ${key.id} (kid ${key.kid}) of ${key.organizationId}`);
          }),
      )
      .demandCommand(1),
  handler: () => undefined,
};

export const keysCommand: CommandModule = {
  builder: (y) => withCommonOptions(y).command(cardNetworkCommand).demandCommand(1),
  handler: () => undefined,
};
