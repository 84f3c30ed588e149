/** The fields of a Sign-In-With-Solana message. */
export interface SiwsMessage {
  domain: string;
  address: string;
  statement: string;
  version: string;
  uri: string;
  issuedAt: string;
  expirationTime?: string;
  notBefore?: string;
  chainId?: string;
  nonce?: string;
}

const HEADER_SUFFIX = ' wants you to sign in with your Solana account:';
const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const KEYS: Record<string, keyof SiwsMessage> = {
  Version: 'version',
  URI: 'uri',
  'Issued At': 'issuedAt',
  'Expiration Time': 'expirationTime',
  'Not Before': 'notBefore',
  'Chain ID': 'chainId',
  Nonce: 'nonce',
};

/**
 * Parses a SIWS message: line 1 `<domain> wants you to sign in with your Solana account:`,
 * line 2 the base58 address, line 3 empty, an optional statement, then `Key: value` lines in any
 * order (Version 1, URI and Issued At required). Returns a reason string when malformed.
 */
export function parseSiws(text: string): SiwsMessage | string {
  const lines = text.split('\n');
  if (lines.length < 4 || !lines[0]!.endsWith(HEADER_SUFFIX)) return 'first line is not a Solana sign-in header';
  const domain = lines[0]!.slice(0, -HEADER_SUFFIX.length);
  const address = lines[1]!;
  if (!domain) return 'domain is missing';
  if (!BASE58_ADDRESS.test(address)) return 'address is not base58';
  if (lines[2] !== '') return 'third line must be empty';
  const fields: Partial<SiwsMessage> = { domain, address, statement: '' };
  let index = 3;
  // A statement is the one line followed by an empty line; the key lines are never empty.
  if (lines[4] === '') {
    fields.statement = lines[3]!;
    index = 5;
  }
  for (; index < lines.length; index++) {
    const line = lines[index]!;
    if (line === 'Resources:' || line.startsWith('- ')) continue;
    const colon = line.indexOf(': ');
    const key = colon > 0 ? KEYS[line.slice(0, colon)] : undefined;
    if (!key) return `unexpected line ${JSON.stringify(line.slice(0, 40))}`;
    fields[key] = line.slice(colon + 2);
  }
  if (fields.version !== '1') return 'Version must be 1';
  if (!fields.uri) return 'URI is required';
  if (!fields.issuedAt) return 'Issued At is required';
  for (const time of [fields.issuedAt, fields.notBefore, fields.expirationTime]) {
    if (time !== undefined && !RFC3339.test(time)) return 'timestamps must be RFC 3339';
  }
  return fields as SiwsMessage;
}
