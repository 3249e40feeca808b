// New notifications, live, while the page is open: one Server-Sent Events stream
// (`GET /v1/notifications/stream`, read with fetch because EventSource cannot send the session).
// Each notification is told to the page as a `soom:notification` event (the badge and the
// notifications screen listen). When the stream drops (a network change, a server restart, a
// sign-in elsewhere) it reconnects, after the server's `retry` and then longer, up to 30 s, and
// sends the last id it saw (`Last-Event-ID`) so that the server replays what it missed.

import { openStream } from './api.js';

let controller = null;
let lastEventID = null;
let generation = 0;

/** Starts following (signed in). Calling it again restarts. */
export function startLive() {
  stopLive();
  const mine = ++generation;
  controller = new AbortController();
  follow(mine, controller.signal);
}

/** Stops following (signed out). */
export function stopLive() {
  generation += 1;
  controller?.abort();
  controller = null;
  lastEventID = null;
}

function told(notification) {
  window.dispatchEvent(new CustomEvent('soom:notification', { detail: notification }));
}

/** Reads one stream after another until stopped; waits between them. */
async function follow(mine, signal) {
  let wait = 2000;
  let failures = 0;
  while (mine === generation) {
    let retry = null;
    try {
      const response = await openStream('/notifications/stream', { lastEventID, signal });
      failures = 0;
      window.dispatchEvent(new CustomEvent('soom:live', { detail: { connected: true } }));
      retry = await read(response, mine);
    } catch (error) {
      if (error?.name === 'AbortError' || mine !== generation) return;
      failures += 1;
      // A session that cannot be renewed is for the session module to handle; stop asking.
      if (error?.status === 401) return;
      if (error?.retryAfter) retry = error.retryAfter * 1000;
    }
    if (mine !== generation) return;
    window.dispatchEvent(new CustomEvent('soom:live', { detail: { connected: false } }));
    if (retry) wait = retry;
    // Each failure in a row waits longer (up to 30 s), with some spread so that a restarted
    // server is not met by every page at once.
    const delay = Math.min(30000, wait * 2 ** Math.min(failures, 4)) * (0.8 + Math.random() * 0.4);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** Reads events until the stream ends; returns the server's `retry` (ms) if it sent one. */
async function read(response, mine) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  let retry = null;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done || mine !== generation) break;
      pending += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let end;
      while ((end = pending.indexOf('\n\n')) >= 0) {
        const block = pending.slice(0, end);
        pending = pending.slice(end + 2);
        const event = parse(block);
        if (event.retry) retry = event.retry;
        if (event.id) lastEventID = event.id;
        if (event.type === 'notification' && event.data) {
          try {
            told(JSON.parse(event.data));
          } catch {
            // Not JSON: nothing to show.
          }
        }
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return retry;
}

/** One event's fields (comments ignored). */
function parse(block) {
  const event = { type: 'message', id: null, data: '', retry: null };
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event.type = value;
    else if (field === 'id') event.id = value;
    else if (field === 'data') event.data += (event.data ? '\n' : '') + value;
    else if (field === 'retry' && /^\d+$/.test(value)) event.retry = Number(value);
  }
  return event;
}
