import { describe, expect, it } from 'vitest';
import { digestAuthorization, parseDigestChallenge } from '../../../../src-main/engine/kb/store/digestAuth.js';

// RFC 7616 §3.9.1: the worked example, for MD5 and SHA-256.
const CHALLENGE = (algorithm: string): string =>
  `Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=${algorithm}, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"`;
const REQUEST = {
  method: 'GET',
  uri: '/dir/index.html',
  nc: 1,
  cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
};
const MUFASA = { username: 'Mufasa', password: 'Circle of Life' };

describe('HTTP Digest authentication (RFC 7616)', () => {
  it('answers the RFC example with its published responses', () => {
    const md5 = digestAuthorization(parseDigestChallenge(CHALLENGE('MD5'))!, MUFASA, REQUEST);
    expect(md5).toContain('response="8ca523f5e9506fed4657c9700eebdbec"');
    const sha = digestAuthorization(parseDigestChallenge(CHALLENGE('SHA-256'))!, MUFASA, REQUEST);
    expect(sha).toContain('response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"');
    expect(sha).toMatch(
      /^Digest username="Mufasa", realm="http-auth@example\.org", uri="\/dir\/index\.html", algorithm=SHA-256, nonce="7ypf[^"]+", nc=00000001, cnonce="f2\/wE4q[^"]+", qop=auth, response="[0-9a-f]{64}", opaque="FQhe[^"]+"$/,
    );
  });

  it("reads Virtuoso's challenge, quoted commas and a second scheme", () => {
    expect(
      parseDigestChallenge(
        'Digest realm="SPARQL", domain="/sparql-auth", nonce="67fe", opaque="5ebe", stale="false", qop="auth", algorithm="MD5"',
      ),
    ).toEqual({
      realm: 'SPARQL',
      nonce: '67fe',
      opaque: '5ebe',
      algorithm: 'MD5',
      qop: 'auth',
    });
    expect(parseDigestChallenge('Basic realm="x", Digest realm="a, b", nonce="n"')).toMatchObject({
      realm: 'a, b',
      nonce: 'n',
      qop: null,
      algorithm: 'MD5',
    });
  });

  it('refuses challenges it cannot answer rather than sending a wrong one', () => {
    expect(parseDigestChallenge('Basic realm="x"')).toBeNull();
    expect(parseDigestChallenge('Digest realm="x", nonce="n", qop="auth-int"')).toBeNull();
    expect(parseDigestChallenge('Digest realm="x", nonce="n", algorithm=SHA-512-256')).toBeNull();
    expect(parseDigestChallenge('Digest realm="x"')).toBeNull();
    expect(parseDigestChallenge(null)).toBeNull();
  });

  it('hashes passwords with any characters, and counts the nonce per request', () => {
    const challenge = parseDigestChallenge('Digest realm="r", nonce="n", qop=auth')!;
    const a = digestAuthorization(challenge, { username: 'u', password: 'pa:ss"word' }, { ...REQUEST, nc: 2 });
    const b = digestAuthorization(challenge, { username: 'u', password: 'pa:ss' }, { ...REQUEST, nc: 2 });
    expect(a).toContain('nc=00000002');
    expect(a.match(/response="(\w+)"/)![1]).not.toBe(b.match(/response="(\w+)"/)![1]);
    expect(a).not.toContain('pa:ss');
  });
});
