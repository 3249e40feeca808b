// Push notifications on this device (the settings screen's switch): only when the person turns
// it on is the browser asked for permission, the service worker (/sw.js) registered, and the
// browser's push subscription made and given to the server; turning it off removes both. The
// server never learns more than the browser's push endpoint and keys, and never shows them.

import { api, ApiError } from './api.js';

// How long the browser's own push service may take to make a subscription: it may be out of reach.
const SUBSCRIBE_PATIENCE = 20000;

/** `promise`, or a `push_service_unavailable` error once `ms` have passed. */
function patiently(promise, ms) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new ApiError(0, 'push_service_unavailable', '')), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Whether this browser can receive pushes at all. */
export function pushSupported() {
  return 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
}

/** 'unsupported', 'denied' (the person blocked notifications for this site), 'on' or 'off'. */
export async function pushState() {
  if (!pushSupported()) return 'unsupported';
  if (Notification.permission === 'denied') return 'denied';
  const registration = await navigator.serviceWorker.getRegistration('/');
  const subscription = await registration?.pushManager.getSubscription();
  return subscription && Notification.permission === 'granted' ? 'on' : 'off';
}

function keyBytes(base64url) {
  const text = atob(base64url.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(text, (character) => character.charCodeAt(0));
}

/** Asks for permission (the browser's own prompt), subscribes, and tells the server. */
export async function enablePush() {
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') return permission === 'denied' ? 'denied' : 'off';
  const registration = await navigator.serviceWorker.register('/sw.js', { scope: '/' });
  await navigator.serviceWorker.ready;
  const { publicKey } = await api('GET', '/push/vapid-public-key', { auth: false });
  let subscription = await registration.pushManager.getSubscription();
  if (!subscription) {
    try {
      subscription = await patiently(
        registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) }), SUBSCRIBE_PATIENCE);
    } catch (error) {
      // The browser could not reach its push service (offline, blocked, none configured).
      if (error instanceof ApiError) throw error;
      throw new ApiError(0, 'push_service_unavailable', '');
    }
  }
  const { endpoint, keys } = subscription.toJSON();
  await api('POST', '/me/push-subscriptions', { body: { kind: 'webpush', endpoint, keys } });
  return 'on';
}

/** Stops pushes to this browser: the server forgets the subscription, the browser drops it. */
export async function disablePush() {
  const registration = await navigator.serviceWorker.getRegistration('/');
  const subscription = await registration?.pushManager.getSubscription();
  if (subscription) {
    const { endpoint, keys } = subscription.toJSON();
    // Sending it again answers with its id (200): the one to delete.
    const saved = await api('POST', '/me/push-subscriptions', { body: { kind: 'webpush', endpoint, keys } });
    await api('DELETE', '/me/push-subscriptions/' + encodeURIComponent(saved.id));
    await subscription.unsubscribe();
  }
  return 'off';
}
