import { createHash, randomBytes } from 'node:crypto';

/** A `WWW-Authenticate: Digest …` challenge (RFC 7616 §3.3), as far as a client needs it. */
export interface DigestChallenge {
  realm: string;
  nonce: string;
  opaque?: string;
  /** Hash algorithm the server asked for. Default (absent): MD5. */
  algorithm: 'MD5' | 'MD5-sess' | 'SHA-256' | 'SHA-256-sess';
  /** 'auth' when offered (the only protection level used here), null for an RFC 2069 server. */
  qop: 'auth' | null;
}

const ALGORITHMS = new Set(['MD5', 'MD5-SESS', 'SHA-256', 'SHA-256-SESS']);

/**
 * Reads the Digest challenge of a WWW-Authenticate header; null when the header offers none, or
 * only an algorithm or protection level this client does not speak (SHA-512-256, auth-int only).
 * Quoted values may hold commas (`qop="auth,auth-int"`), so it tokenises instead of splitting.
 */
export function parseDigestChallenge(header: string | null): DigestChallenge | null {
  if (!header) return null;
  const start = header.search(/(?:^|[\s,])Digest\s/i);
  if (start < 0) return null;
  const params = new Map<string, string>();
  const re = /([A-Za-z][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/gy;
  let rest = header.slice(start).replace(/^[\s,]*Digest\s+/i, '');
  for (;;) {
    rest = rest.replace(/^[\s,]+/, '');
    re.lastIndex = 0;
    const m = re.exec(rest);
    if (!m) break;
    const key = m[1]!.toLowerCase();
    // A second scheme (e.g. `, Basic realm=…`) ends this challenge.
    if (params.has(key)) break;
    params.set(key, m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? ''));
    rest = rest.slice(m[0].length);
  }
  const realm = params.get('realm');
  const nonce = params.get('nonce');
  if (realm === undefined || nonce === undefined) return null;
  const algorithm = (params.get('algorithm') ?? 'MD5').toUpperCase();
  if (!ALGORITHMS.has(algorithm)) return null;
  const qops = params.has('qop')
    ? params
        .get('qop')!
        .split(',')
        .map((q) => q.trim().toLowerCase())
    : null;
  if (qops && !qops.includes('auth')) return null;
  const opaque = params.get('opaque');
  return {
    realm,
    nonce,
    ...(opaque !== undefined ? { opaque } : {}),
    algorithm: algorithm.replace('-SESS', '-sess') as DigestChallenge['algorithm'],
    qop: qops ? 'auth' : null,
  };
}

export interface DigestCredentials {
  username: string;
  password: string;
}

/**
 * The Authorization header answering `challenge` for one request (RFC 7616 §3.4). `nc` counts the
 * requests made with this nonce (1 for the first); `cnonce` is random unless a test fixes it.
 */
export function digestAuthorization(
  challenge: DigestChallenge,
  credentials: DigestCredentials,
  request: { method: string; uri: string; nc: number; cnonce?: string },
): string {
  const hash = (text: string): string =>
    createHash(challenge.algorithm.startsWith('SHA-256') ? 'sha256' : 'md5')
      .update(text, 'utf8')
      .digest('hex');
  const cnonce = request.cnonce ?? randomBytes(16).toString('hex');
  const nc = request.nc.toString(16).padStart(8, '0');
  let ha1 = hash(`${credentials.username}:${challenge.realm}:${credentials.password}`);
  if (challenge.algorithm.endsWith('-sess')) ha1 = hash(`${ha1}:${challenge.nonce}:${cnonce}`);
  const ha2 = hash(`${request.method.toUpperCase()}:${request.uri}`);
  const response = challenge.qop
    ? hash(`${ha1}:${challenge.nonce}:${nc}:${cnonce}:auth:${ha2}`)
    : hash(`${ha1}:${challenge.nonce}:${ha2}`);
  const fields = [
    `username=${quote(credentials.username)}`,
    `realm=${quote(challenge.realm)}`,
    `uri=${quote(request.uri)}`,
    `algorithm=${challenge.algorithm}`,
    `nonce=${quote(challenge.nonce)}`,
    ...(challenge.qop ? [`nc=${nc}`, `cnonce=${quote(cnonce)}`, 'qop=auth'] : []),
    `response=${quote(response)}`,
    ...(challenge.opaque !== undefined ? [`opaque=${quote(challenge.opaque)}`] : []),
  ];
  return `Digest ${fields.join(', ')}`;
}

function quote(value: string): string {
  return `"${value.replace(/(["\\])/g, '\\$1')}"`;
}
