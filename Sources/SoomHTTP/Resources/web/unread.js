// The unread badge (`unread-count`), shown only when something is unread: refreshed on start, when a
// notification arrives live (live.js), every 15 seconds while the page is visible, when the page
// comes back into view, and after the notifications screen changes it.
// One cheap read (`GET /v1/notifications/unread-count`) each time.

import { api } from './api.js';
import { describe, showError } from './errors.js';

// Above this the badge says `99+`.
const SHOWN_MAX = 99;
let badge = null;
let spoken = null;
let timer = null;
let failures = 0;
let warned = false;
// One failed refresh is a hiccup (the badge keeps its last count); this many in a row is said.
const FAILURES_SHOWN = 3;

export async function refreshUnread() {
  if (!badge) return;
  const shown = badge;
  try {
    const { total: count } = await api('GET', '/notifications/unread-count');
    if (badge !== shown) return;
    const text = count > SHOWN_MAX ? `${SHOWN_MAX}+` : String(count);
    badge.textContent = text;
    badge.hidden = count === 0;
    badge.classList.remove('stale');
    badge.removeAttribute('title');
    spoken?.(text);
    failures = 0;
    warned = false;
  } catch (error) {
    if (badge !== shown) return;
    failures += 1;
    if (failures >= FAILURES_SHOWN) {
      badge.classList.add('stale');
      badge.title = describe(error);
      // Said once per run of failures, not every 15 seconds.
      if (!warned) showError(error);
      warned = true;
    }
  }
}

/** Stops refreshing (signed out). */
export function unwatchUnread() {
  clearInterval(timer);
  timer = null;
  badge = null;
  spoken = null;
  failures = 0;
  warned = false;
}

/** Starts keeping `element` up to date; `say(text)` gets each new count too. */
export function watchUnread(element, say = null) {
  badge = element;
  spoken = say;
  refreshUnread();
  clearInterval(timer);
  timer = setInterval(() => {
    if (document.visibilityState === 'visible') refreshUnread();
  }, 15000);
}

document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') refreshUnread();
});
window.addEventListener('soom:unread-changed', refreshUnread);
window.addEventListener('soom:notification', refreshUnread);
