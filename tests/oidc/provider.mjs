// A real OpenID provider for the tests of `toolforge serve --http` with `toolforge.auth`:
// panva's certified `oidc-provider`, on loopback, issuing JWT access tokens with the client
// credentials grant (RFC 8707 resource indicators: the token's `aud` is the `resource` asked
// for). Issuers run on loopback, each with its own RSA key (the second one's tokens must be refused).
//
// Clients (secret: `<id>-secret`):
//   alice       scopes mcp read reports   claims org.branch=north, email alice@example.com
//   bob         scopes mcp read          claims org.branch=south, email bob@example.com
//   nobranch    scopes mcp read reports   no org claim
//   shortlived  as alice, tokens valid for 1 second
//   carol       scopes mcp read          claims org.branch=south; opaque tokens (not JWTs)
// and `toolforge-rs` (secret `toolforge-rs-secret`), the resource server's own client, which
// may introspect tokens at /token/introspection (RFC 7662).
//
// A third issuer rotates its keys on `POST /rotate`: a new key signs from then on, the old ones
// stay in its key set (so tokens signed before stay valid), as an issuer rolling its keys does.
//
// A fourth issuer's metadata and key set can be made to fail: `POST /keys/hang` leaves every
// request for them unanswered, `POST /keys/fail` answers them 500, `POST /keys/serve` serves
// them again; `GET /keys/counts` says how many requests each kind has had
// ({"metadata": n, "jwks": n}). Its token endpoint keeps working throughout.
//
// Prints one JSON line, {"issuer": URL, "other_issuer": URL, "rotating_issuer": URL,
// "flaky_issuer": URL}, then serves until killed or its standard input closes.
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';

import Provider from 'oidc-provider';

const CLIENTS = {
  alice: { scope: 'mcp read reports', claims: { email: 'alice@example.com', org: { branch: 'north' } } },
  bob: { scope: 'mcp read', claims: { email: 'bob@example.com', org: { branch: 'south' } } },
  nobranch: { scope: 'mcp read reports', claims: { email: 'eve@example.com' } },
  shortlived: { scope: 'mcp read reports', claims: { email: 'alice@example.com', org: { branch: 'north' } }, ttl: 1 },
  carol: { scope: 'mcp read', claims: { email: 'carol@example.com', org: { branch: 'south' } }, opaque: true },
};

function signingKey(kid) {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
}

async function start(name, { rotating = false, flaky = false } = {}) {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const keys = [signingKey(`${name}-key`)];
  let handler = provider(issuer, keys).callback();
  let keysMode = 'serve';
  const counts = { metadata: 0, jwks: 0 };
  server.on('request', (req, res) => {
    if (flaky && req.url.startsWith('/keys/')) {
      if (req.method === 'POST' && ['/keys/hang', '/keys/fail', '/keys/serve'].includes(req.url)) {
        keysMode = req.url.slice('/keys/'.length);
        res.writeHead(204);
        res.end();
      } else if (req.method === 'GET' && req.url === '/keys/counts') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(counts));
      } else {
        res.writeHead(404);
        res.end();
      }
      return;
    }
    const kind = req.url.startsWith('/.well-known/') ? 'metadata' : req.url.startsWith('/jwks') ? 'jwks' : null;
    if (flaky && kind) {
      counts[kind] += 1;
      if (keysMode === 'hang') {
        return; // never answered: the client's own timeout ends it
      }
      if (keysMode === 'fail') {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('the key service is down');
        return;
      }
    }
    if (rotating && req.method === 'POST' && req.url === '/rotate') {
      keys.unshift(signingKey(`${name}-key-${keys.length + 1}`));
      handler = provider(issuer, keys).callback();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kid: keys[0].kid }));
      return;
    }
    handler(req, res);
  });
  return { issuer, server };
}

// A provider for `issuer` signing with the first of `keys` (all of them published).
function provider(issuer, keys) {
  return new Provider(issuer, {
    jwks: { keys: [...keys] },
    scopes: ['openid', 'mcp', 'read', 'reports'],
    clients: [
      ...Object.entries(CLIENTS).map(([id, client]) => ({
        client_id: id,
        client_secret: `${id}-secret`,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        scope: client.scope,
        token_endpoint_auth_method: 'client_secret_post',
      })),
      {
        client_id: 'toolforge-rs',
        client_secret: 'toolforge-rs-secret',
        grant_types: [],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, resource, client) => ({
          scope: 'mcp read reports',
          audience: resource,
          accessTokenTTL: CLIENTS[client.clientId]?.ttl ?? 600,
          ...(CLIENTS[client.clientId]?.opaque
            ? { accessTokenFormat: 'opaque' }
            : { accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } }),
        }),
      },
    },
    extraTokenClaims: (ctx, token) => CLIENTS[token.clientId]?.claims ?? {},
  });
}

const main = await start('main');
const other = await start('other');
const rotating = await start('rotating', { rotating: true });
const flaky = await start('flaky', { flaky: true });
process.stdout.write(
  `${JSON.stringify({
    issuer: main.issuer,
    other_issuer: other.issuer,
    rotating_issuer: rotating.issuer,
    flaky_issuer: flaky.issuer,
  })}\n`,
);
const stop = () => {
  main.server.close();
  other.server.close();
  rotating.server.close();
  flaky.server.close();
  process.exit(0);
};
process.stdin.on('end', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
