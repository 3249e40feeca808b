// The HTTP API (/v1), as the contract (/openapi.yaml) describes it. The session token lives
// only in this module's memory: never in storage, never in a URL, never logged.

export class ApiError extends Error {
  /** `status` 0 means the server could not be reached. */
  constructor(status, code, message, details = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = details.field ?? null;
    this.details = details;
  }
}

let token = null;
// While the server is known to be under maintenance (a `503 maintenance` came back), writes are
// refused here without a request: until its end, or for a minute at most, after which the next
// write asks the server again (an operator may end it early). `status.js` shows the banner until
// the end, or until a write succeeds.
let maintenanceUntil = 0; // when writes are tried again, ms
let maintenanceEnd = 0; // when the server said it ends, ms
// Writes the server serves during maintenance, so that one can still sign in and read.
const SERVED_IN_MAINTENANCE = new Set(['POST /auth/challenges', 'POST /sessions', 'DELETE /sessions/current', 'POST /nicknames/validation']);

function isPausedWrite(method, path) {
  return method !== 'GET' && method !== 'HEAD' && !SERVED_IN_MAINTENANCE.has(`${method} ${path}`) && maintenanceUntil > Date.now();
}

/** Tells the page that maintenance began (with its end, a Date) or ended (null). */
function maintenanceChanged(until) {
  window.dispatchEvent(new CustomEvent('soom:maintenance', { detail: { until } }));
}
let renewSession = null;
// The one renewal in flight: every call that meets a 401 (or starts) meanwhile waits for it.
let renewing = null;

export function setToken(value) {
  token = value;
}

export function hasSession() {
  return token !== null;
}

/** `renew` signs a fresh login challenge, sets the new token and returns it (or throws). */
export function onSessionExpired(renew) {
  renewSession = renew;
}

/** Starts a renewal, or joins the one already running. The token is not touched here: when the
 * renewal fails, the old one stays (a network hiccup must not end the session for good). */
function renew() {
  renewing ??= Promise.resolve()
    .then(() => renewSession())
    .finally(() => {
      renewing = null;
    });
  return renewing;
}

/**
 * Calls the API. `body`: an object sent as JSON, or a Blob/File sent raw with its type.
 * Returns the parsed JSON (null for 204). Throws `ApiError` for every failure, with the
 * server's code and message. A 401 on a signed-in call renews the session once and retries;
 * concurrent 401s share one renewal.
 */
export async function api(method, path, { body, auth = true, headers = {} } = {}) {
  const attempt = async () => {
    const sent = { ...headers };
    const used = auth ? token : null;
    if (used) sent.Authorization = `Bearer ${used}`;
    let payload;
    if (body instanceof Blob) {
      payload = body;
      sent['Content-Type'] = body.type || 'application/octet-stream';
    } else if (body !== undefined) {
      payload = JSON.stringify(body);
      sent['Content-Type'] = 'application/json';
    }
    try {
      return { used, response: await fetch(`/v1${path}`, { method, headers: sent, body: payload, credentials: 'omit', cache: 'no-store' }) };
    } catch {
      throw new ApiError(0, 'network', '');
    }
  };
  if (isPausedWrite(method, path)) {
    throw new ApiError(503, 'maintenance', '', { until: new Date(maintenanceEnd).toISOString() });
  }
  // A renewal under way: wait for its token rather than sending one known to be expired.
  if (auth && renewing) await renewing.catch(() => {});
  let { used, response } = await attempt();
  if (response.status === 401 && auth && used && renewSession) {
    // Renewed already by another call since this one was sent: just retry with the new token.
    if (token === used) await renew();
    else if (renewing) await renewing;
    ({ response } = await attempt());
  }
  // A write that maintenance would refuse went through: it is over.
  const refusable = method !== 'GET' && method !== 'HEAD' && !SERVED_IN_MAINTENANCE.has(`${method} ${path}`);
  if (refusable && response.ok && maintenanceEnd) {
    maintenanceUntil = 0;
    maintenanceEnd = 0;
    maintenanceChanged(null);
  }
  if (response.status === 204) return null;
  let json = null;
  try {
    json = await response.json();
  } catch {
    json = null;
  }
  if (!response.ok) {
    const error = json?.error ?? {};
    const failure = new ApiError(response.status, error.code ?? 'http_' + response.status, error.message ?? '', error);
    const retryAfter = Number(response.headers.get('Retry-After'));
    failure.retryAfter = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null;
    if (failure.code === 'maintenance') {
      const until = Date.parse(error.until ?? '');
      const end = Number.isFinite(until) ? until : Date.now() + (failure.retryAfter ?? 60) * 1000;
      maintenanceUntil = Math.min(end, Date.now() + 60000);
      maintenanceEnd = end;
      maintenanceChanged(new Date(end));
    }
    throw failure;
  }
  return json;
}

/**
 * Opens a streaming GET (Server-Sent Events) with the session, renewing it once on a 401 like
 * `api`. Returns the open Response; throws `ApiError` for a refusal or a network failure.
 * `signal` aborts it.
 */
export async function openStream(path, { lastEventID = null, signal } = {}) {
  const attempt = async () => {
    const headers = { Accept: 'text/event-stream' };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (lastEventID) headers['Last-Event-ID'] = lastEventID;
    const used = token;
    try {
      return { used, response: await fetch(`/v1${path}`, { headers, credentials: 'omit', cache: 'no-store', signal }) };
    } catch (error) {
      if (error?.name === 'AbortError') throw error;
      throw new ApiError(0, 'network', '');
    }
  };
  if (renewing) await renewing.catch(() => {});
  let { used, response } = await attempt();
  if (response.status === 401 && used && renewSession) {
    if (token === used) await renew();
    else if (renewing) await renewing;
    ({ response } = await attempt());
  }
  if (!response.ok) {
    let error = {};
    try {
      error = (await response.json())?.error ?? {};
    } catch {
      error = {};
    }
    const failure = new ApiError(response.status, error.code ?? 'http_' + response.status, error.message ?? '', error);
    const retryAfter = Number(response.headers.get('Retry-After'));
    failure.retryAfter = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null;
    throw failure;
  }
  return response;
}

/** Query string from an object, leaving out null/undefined values. */
export function query(parameters) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(parameters)) {
    if (value !== null && value !== undefined && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/**
 * A paged list (`{items, nextCursor}`): each `next()` fetches the following page once and
 * returns its items; `done` is true after the last. Never fetches a page twice.
 */
export function pager(path, parameters = {}, limit = 20) {
  let cursor = null;
  let done = false;
  let pending = null;
  return {
    get done() {
      return done;
    },
    next() {
      if (done) return Promise.resolve([]);
      if (pending) return pending;
      pending = api('GET', path + query({ ...parameters, limit, cursor }))
        .then((page) => {
          cursor = page.nextCursor ?? null;
          done = cursor === null;
          return page.items;
        })
        .finally(() => {
          pending = null;
        });
      return pending;
    },
  };
}
