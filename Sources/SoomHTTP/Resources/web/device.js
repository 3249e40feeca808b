// The device's identity: an RSA key pair made by WebCrypto with `extractable: false`, so the
// private key can sign but can never be read out, not even by this page's own scripts. It is
// kept in IndexedDB (database `soom`, object store `keys`, key `device`) as the CryptoKeyPair
// itself; only the public key ever leaves the browser.

import { api } from './api.js';

const DATABASE = 'soom';
const STORE = 'keys';
const KEY = 'device';
const ALGORITHM = 'rsa-pss-sha256';
// RSA-PSS with SHA-256 and a 32-byte salt: the contract accepts any salt length.
const PSS = { name: 'RSA-PSS', saltLength: 32 };

/** Whether this browser can hold a device key: WebCrypto exists only in a secure context. */
export function isSupported() {
  return Boolean(window.isSecureContext && window.crypto?.subtle && window.indexedDB);
}

function openDatabase() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function withStore(mode, work) {
  const database = await openDatabase();
  try {
    return await new Promise((resolve, reject) => {
      const transaction = database.transaction(STORE, mode);
      const request = work(transaction.objectStore(STORE));
      transaction.oncomplete = () => resolve(request?.result);
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error);
    });
  } finally {
    database.close();
  }
}

/** The stored key pair, or null. */
export async function storedKeys() {
  const pair = await withStore('readonly', (store) => store.get(KEY));
  return pair?.privateKey && pair?.publicKey ? pair : null;
}

export async function forgetKeys() {
  await withStore('readwrite', (store) => store.delete(KEY));
}

/** Makes a new non-extractable key pair (not stored yet: see `keepKeys`). */
export function makeKeys() {
  return crypto.subtle.generateKey(
    { name: 'RSA-PSS', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  );
}

export async function keepKeys(pair) {
  await withStore('readwrite', (store) => store.put(pair, KEY));
}

function base64(bytes) {
  let binary = '';
  for (const byte of new Uint8Array(bytes)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The public key as PEM `BEGIN PUBLIC KEY` (public keys are always exportable). */
export async function publicKeyPem(pair) {
  const body = base64(await crypto.subtle.exportKey('spki', pair.publicKey)).replace(/(.{64})/g, '$1\n').trim();
  return `-----BEGIN PUBLIC KEY-----\n${body}\n-----END PUBLIC KEY-----\n`;
}

/**
 * A fresh proof for `purpose` (`register`, `login`, `transfer`, `transfer-code`, `withdraw`):
 * asks for a challenge and signs `soom:v1:<purpose>:<nonce>` with the device key.
 */
export async function proof(pair, purpose) {
  const challenge = await api('POST', '/auth/challenges', { auth: false });
  const message = new TextEncoder().encode(`soom:v1:${purpose}:${challenge.nonce}`);
  const signature = await crypto.subtle.sign(PSS, pair.privateKey, message);
  return { algorithm: ALGORITHM, challengeId: challenge.challengeId, signature: base64(signature) };
}
