// The signed-in account: register, sign in (again after every reload, by signing a login
// challenge with the stored device key), move to another device, withdraw, sign out.

import { api, setToken, onSessionExpired, ApiError } from './api.js';
import { readPreference, writePreference } from './i18n.js';
import { storedKeys, makeKeys, keepKeys, forgetKeys, publicKeyPem, proof } from './device.js';

let keys = null;
// Set by signing out: the next load shows the start screen (with "sign in again") instead of
// signing in with the stored key by itself. A preference, not a secret.
const SIGNED_OUT = 'soom.signedOut';
let me = null;
const listeners = new Set();

export function currentAccount() {
  return me;
}

/** Replaces the cached `Me` (after PATCH /v1/me) and tells listeners. */
export function updateAccount(account) {
  me = account;
  for (const listener of listeners) listener(me);
}

export function onAccountChange(listener) {
  listeners.add(listener);
}

async function signIn() {
  writePreference(SIGNED_OUT, null);
  const body = { publicKey: await publicKeyPem(keys), ...(await proof(keys, 'login')) };
  const result = await api('POST', '/sessions', { body, auth: false });
  setToken(result.session.token);
  updateAccount(result.account);
  return result.session.token;
}

function isLost(error) {
  return error instanceof ApiError && error.code === 'account_not_found';
}

/** This key's account is gone (moved to another device, or withdrawn elsewhere): the key is
 * forgotten, so the start screen offers a fresh start instead of a sign-in that cannot work. */
async function forgetLostAccount() {
  try {
    await forgetKeys();
  } finally {
    keys = null;
    setToken(null);
    updateAccount(null);
  }
}

onSessionExpired(async () => {
  if (!keys) throw new ApiError(401, 'unauthorized', '');
  try {
    return await signIn();
  } catch (error) {
    if (isLost(error)) {
      await forgetLostAccount().catch(() => {});
      // The start screen says why (app.js); the screen that asked does not show it again.
      error.handled = true;
      window.dispatchEvent(new CustomEvent('soom:signed-out', { detail: { reason: 'account_not_found' } }));
    }
    throw error;
  }
});

/**
 * After a (re)load: signs in with the stored key. Returns 'signed-in'; 'start' when this
 * browser has no key or signed out; 'lost' when its account no longer exists (withdrawn, moved
 * to another device): then the key is forgotten.
 */
export async function resume() {
  keys = await storedKeys();
  if (!keys) return 'start';
  if (readPreference(SIGNED_OUT)) return 'start';
  try {
    await signIn();
    return 'signed-in';
  } catch (error) {
    if (isLost(error)) {
      await forgetLostAccount();
      return 'lost';
    }
    throw error;
  }
}

/** A nickname the server suggests (free right now). */
export async function suggestNickname() {
  return (await api('GET', '/nicknames/suggestion', { auth: false })).nickname;
}

/** `{available, reason?}` for a nickname. */
export function checkNickname(nickname) {
  return api('POST', '/nicknames/validation', { body: { nickname }, auth: false });
}

/** Makes the device key and the account. The key is stored only once the account exists. */
export async function register(nickname) {
  const pair = await makeKeys();
  const body = { publicKey: await publicKeyPem(pair), ...(await proof(pair, 'register')) };
  if (nickname) body.nickname = nickname;
  const result = await api('POST', '/accounts', { body, auth: false });
  writePreference(SIGNED_OUT, null);
  await keepKeys(pair);
  keys = pair;
  setToken(result.session.token);
  updateAccount(result.account);
}

/** On a new device: takes over the account of `code` with a new key made here. */
export async function transferHere(code) {
  const pair = await makeKeys();
  const body = { code, publicKey: await publicKeyPem(pair), ...(await proof(pair, 'transfer')) };
  const result = await api('POST', '/accounts/transfer', { body, auth: false });
  writePreference(SIGNED_OUT, null);
  await keepKeys(pair);
  keys = pair;
  setToken(result.session.token);
  updateAccount(result.account);
}

/** On this device: a one-time code (10 minutes) to move the account to another device. */
export async function makeTransferCode() {
  return api('POST', '/me/transfer-codes', { body: await proof(keys, 'transfer-code') });
}

/** Deletes the account (signed by this device's key), then the key. */
export async function withdraw(reason) {
  await api('DELETE', '/me', { body: { reason, ...(await proof(keys, 'withdraw')) } });
  await forgetKeys();
  keys = null;
  setToken(null);
  updateAccount(null);
}

/** Ends this session; the key stays, so "sign in" later needs no code. */
export async function signOut() {
  writePreference(SIGNED_OUT, '1');
  try {
    await api('DELETE', '/sessions/current');
  } finally {
    setToken(null);
    updateAccount(null);
  }
}

/** Signs in again with the stored key (after signing out). */
export async function signInAgain() {
  keys = keys ?? (await storedKeys());
  if (!keys) return false;
  try {
    await signIn();
  } catch (error) {
    if (isLost(error)) await forgetLostAccount();
    throw error;
  }
  return true;
}

export function hasKeys() {
  return keys !== null;
}
