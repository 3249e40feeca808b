// The unread badge (`unread-count`): refreshed on start, every 15 seconds while the page is
// visible, when the page comes back into view, and after the notifications screen changes it.

import { api } from './api.js';

const LIMIT = 50;
let badge = null;
let timer = null;

export async function refreshUnread() {
  if (!badge) return;
  try {
    const page = await api('GET', `/notifications?unread=true&limit=${LIMIT}`);
    const count = page.items.length;
    badge.textContent = count >= LIMIT && page.nextCursor ? `${LIMIT}+` : String(count);
    badge.classList.toggle('zero', count === 0);
  } catch {
    // The badge is a hint: a failed refresh keeps the last count, the next one tries again.
  }
}

/** Stops refreshing (signed out). */
export function unwatchUnread() {
  clearInterval(timer);
  timer = null;
  badge = null;
}

/** Starts keeping `element` up to date. */
export function watchUnread(element) {
  badge = element;
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
