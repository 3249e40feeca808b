// Settings (`#/account`): the language; a one-time code to move this account to a new device;
// withdrawing (with an optional reason and a second confirmation); signing out.

import { h, graphemes, showCount } from './dom.js';
import { strings, language, setLanguage, LANGUAGES } from './i18n.js';
import { errorBox } from './errors.js';
import { href } from './router.js';
import { makeTransferCode, withdraw, signOut } from './session.js';

const t = strings({
  ko: {
    title: '설정', back: '내 프로필로',
    language: '언어', languageNote: '화면에 쓰는 말을 골라요. 이 선택은 이 브라우저에만 저장돼요.',
    transfer: '새 기기로 옮기기',
    transferNote: '한 번만 쓸 수 있는 10분짜리 코드를 만들어, 이 계정을 다른 기기로 옮겨요. 옮기고 나면 이 기기에서는 로그아웃돼요.',
    makeCode: '이전 코드 만들기', makingCode: '코드를 만드는 중…', newCode: '새 코드 만들기',
    codeLabel: '이전 코드', copy: '코드 복사', copied: '코드를 복사했어요.', copyFailed: '복사하지 못했어요. 코드를 길게 눌러 직접 복사해 주세요.',
    expires: '{time}까지 쓸 수 있어요.', left: '남은 시간 {time}', expired: '코드가 만료되었어요. 새 코드를 만들어 주세요.',
    howTo: '새 기기에서 숨을 열고 ‘다른 기기에서 옮겨 오기’를 고른 다음, 이 코드를 입력하세요. 코드는 다른 사람에게 보여 주지 마세요.',
    withdraw: '탈퇴하기',
    withdrawNote: '계정과 내 카드, 댓글 카드, 공감, 팔로우, 관심 태그, 알림이 바로 모두 지워지고 되돌릴 수 없어요. 이 기기로는 7일 뒤에 다시 가입할 수 있어요.',
    reason: '탈퇴하는 이유 (선택)', reasonHint: '500자까지. 더 나은 숨을 만드는 데만 써요.', reasonCount: '{count}/500', reasonTooLong: '이유는 500자까지 쓸 수 있어요.',
    withdrawButton: '탈퇴하기…', confirmTitle: '정말 탈퇴할까요? 지운 계정과 카드는 되돌릴 수 없어요.',
    confirmButton: '네, 탈퇴할게요', cancel: '취소', withdrawing: '탈퇴하는 중…',
    signOut: '로그아웃',
    signOutNote: '이 기기에서 로그아웃해요. 기기 열쇠는 남아 있어서, 다음에 ‘다시 로그인’을 누르면 코드 없이 돌아올 수 있어요.',
    signOutButton: '로그아웃', signingOut: '로그아웃하는 중…', continue: '처음 화면으로',
  },
  en: {
    title: 'Settings', back: 'Back to my profile',
    language: 'Language', languageNote: 'Choose the language of the screens. The choice is kept in this browser only.',
    transfer: 'Move to a new device',
    transferNote: 'Makes a one-time code, valid for 10 minutes, that moves this account to another device. This device is then signed out.',
    makeCode: 'Make a transfer code', makingCode: 'Making the code…', newCode: 'Make a new code',
    codeLabel: 'Transfer code', copy: 'Copy code', copied: 'Code copied.', copyFailed: 'Could not copy. Please select the code and copy it yourself.',
    expires: 'Valid until {time}.', left: '{time} left', expired: 'The code has expired. Please make a new one.',
    howTo: 'On the new device, open Soom, choose “Move here from another device”, and enter this code. Do not show the code to anyone else.',
    withdraw: 'Withdraw',
    withdrawNote: 'Deletes your account and your cards, comment cards, likes, follows, favourite tags and notifications at once, for good. This device can join again after 7 days.',
    reason: 'Why are you leaving? (optional)', reasonHint: 'Up to 500 characters. Used only to make Soom better.', reasonCount: '{count}/500', reasonTooLong: 'The reason can be at most 500 characters.',
    withdrawButton: 'Withdraw…', confirmTitle: 'Really withdraw? A deleted account and its cards cannot be brought back.',
    confirmButton: 'Yes, withdraw', cancel: 'Cancel', withdrawing: 'Withdrawing…',
    signOut: 'Sign out',
    signOutNote: 'Signs this device out. Its key stays, so “Sign in again” brings you back later without a code.',
    signOutButton: 'Sign out', signingOut: 'Signing out…', continue: 'Go to the start screen',
  },
});

const NAMES = { ko: '한국어', en: 'English' };
const REASON_MAX = 500;

/** Back to the start screen: the shell listens for this and takes down the signed-in screens;
 * `reason` 'withdrawn' makes the start screen confirm that the account is gone. */
function restart(reason = null) {
  window.dispatchEvent(new CustomEvent('soom:signed-out', { detail: { reason } }));
}

function section(id, title, note, ...content) {
  return h('section', { class: `stack account-section account-${id}`, 'aria-labelledby': `account-${id}-title` },
    h('h2', { id: `account-${id}-title` }, title),
    h('p', { class: 'muted' }, note),
    ...content);
}

export function render(main) {
  let gone = false;
  let countdown = null;

  // Language: the shell redraws the screen when it changes.
  const languages = h('div', { class: 'row account-languages', role: 'group', 'aria-labelledby': 'account-language-title' },
    LANGUAGES.map((code) => h('button', {
      type: 'button', class: 'account-language', lang: code, test: `language-${code}`, 'aria-pressed': String(code === language()),
      onclick: () => setLanguage(code),
    }, NAMES[code] ?? code)));

  // Move to a new device.
  const makeCode = h('button', { type: 'button', class: 'primary', test: 'make-transfer-code' }, t('makeCode'));
  const codeArea = h('div', { class: 'account-code-area', 'aria-live': 'polite' });
  let making = false;
  makeCode.addEventListener('click', async () => {
    if (making) return;
    making = true;
    makeCode.setAttribute('aria-busy', 'true');
    makeCode.textContent = t('makingCode');
    clearInterval(countdown);
    codeArea.replaceChildren();
    try {
      const result = await makeTransferCode();
      if (gone) return;
      showCode(result);
    } catch (error) {
      if (!gone) codeArea.replaceChildren(errorBox(error));
    } finally {
      making = false;
      makeCode.removeAttribute('aria-busy');
      makeCode.textContent = codeArea.querySelector('.account-code') ? t('newCode') : t('makeCode');
    }
  });

  function showCode({ code, expiresAt }) {
    const ends = Date.parse(expiresAt);
    const codeText = h('p', { class: 'account-code', id: 'account-code', test: 'transfer-code' }, code);
    const copyStatus = h('p', { class: 'muted small', 'aria-live': 'polite' });
    // The countdown is for the eyes: the time it ends is what screen readers hear (once).
    const left = h('span', { class: 'account-left', 'aria-hidden': 'true' });
    const expiry = h('p', { class: 'account-expiry', test: 'transfer-expiry' },
      h('time', { datetime: expiresAt }, t('expires', { time: new Date(ends).toLocaleTimeString(language()) })), ' ', left);
    const copy = h('button', { type: 'button', class: 'ghost', test: 'copy-transfer-code' }, t('copy'));
    copy.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(code);
        copyStatus.textContent = t('copied');
      } catch {
        // Not an API error: the clipboard may be refused by the browser. Select the code instead.
        copyStatus.textContent = t('copyFailed');
        const range = document.createRange();
        range.selectNodeContents(codeText);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
      }
    });
    const tick = () => {
      const seconds = Math.max(0, Math.round((ends - Date.now()) / 1000));
      if (seconds === 0) {
        clearInterval(countdown);
        codeText.classList.add('account-code-expired');
        expiry.replaceChildren(h('span', { class: 'error', role: 'alert' }, t('expired')));
        return;
      }
      left.textContent = `(${t('left', { time: `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}` })})`;
    };
    tick();
    countdown = setInterval(tick, 1000);
    codeArea.replaceChildren(h('div', { class: 'stack account-code-box', test: 'transfer-box' },
      h('p', { class: 'account-code-label', id: 'account-code-label' }, t('codeLabel')),
      codeText,
      h('div', { class: 'row' }, copy, copyStatus),
      expiry,
      h('p', { class: 'account-how' }, t('howTo'))));
  }

  // Withdraw: a reason (optional), then a second, explicit confirmation.
  const reason = h('textarea', { id: 'account-reason', test: 'withdraw-reason', rows: '3', 'aria-describedby': 'account-reason-hint account-reason-count' });
  const reasonCount = h('span', { id: 'account-reason-count', class: 'muted counter' }, t('reasonCount', { count: 0 }));
  reason.addEventListener('input', () => showCount(reasonCount, reason, REASON_MAX, (count) => t('reasonCount', { count })));
  const withdrawProblem = h('div', { 'aria-live': 'assertive' });
  const start = h('button', { type: 'submit', class: 'danger account-withdraw-start', test: 'withdraw' }, t('withdrawButton'));
  const confirmTitle = h('p', { class: 'account-confirm-title', id: 'account-confirm-title', tabindex: '-1' }, t('confirmTitle'));
  const confirmButton = h('button', { type: 'button', class: 'danger account-confirm-button', test: 'withdraw-confirm' }, t('confirmButton'));
  const cancel = h('button', { type: 'button', class: 'ghost', test: 'withdraw-cancel' }, t('cancel'));
  const confirmStep = h('div', { class: 'stack account-confirm', role: 'group', 'aria-labelledby': 'account-confirm-title', hidden: true },
    confirmTitle, h('div', { class: 'row' }, cancel, confirmButton));
  const withdrawForm = h('form', { class: 'stack account-withdraw-form', novalidate: true },
    h('div', { class: 'field' },
      h('label', { for: 'account-reason' }, t('reason')), reason,
      h('div', { class: 'row account-reason-meta' }, h('p', { id: 'account-reason-hint', class: 'muted small' }, t('reasonHint')), reasonCount)),
    withdrawProblem,
    h('div', { class: 'row' }, start),
    confirmStep);
  withdrawForm.addEventListener('submit', (event) => {
    event.preventDefault();
    withdrawProblem.replaceChildren();
    if (graphemes(reason.value) > REASON_MAX) {
      withdrawProblem.replaceChildren(h('p', { class: 'error', role: 'alert', test: 'error' }, t('reasonTooLong')));
      return;
    }
    confirmStep.hidden = false;
    start.hidden = true;
    confirmTitle.focus();
  });
  cancel.addEventListener('click', () => {
    confirmStep.hidden = true;
    start.hidden = false;
    start.focus();
  });
  let withdrawing = false;
  confirmButton.addEventListener('click', async () => {
    if (withdrawing) return;
    withdrawing = true;
    confirmButton.setAttribute('aria-busy', 'true');
    confirmButton.textContent = t('withdrawing');
    withdrawProblem.replaceChildren();
    try {
      await withdraw(reason.value);
      restart('withdrawn');
    } catch (error) {
      withdrawing = false;
      confirmButton.removeAttribute('aria-busy');
      confirmButton.textContent = t('confirmButton');
      if (!gone) withdrawProblem.replaceChildren(errorBox(error));
    }
  });

  // Sign out.
  const signOutButton = h('button', { type: 'button', class: 'ghost', test: 'sign-out' }, t('signOutButton'));
  const signOutProblem = h('div', { 'aria-live': 'assertive' });
  let signingOut = false;
  signOutButton.addEventListener('click', async () => {
    if (signingOut) return;
    signingOut = true;
    signOutButton.setAttribute('aria-busy', 'true');
    signOutButton.textContent = t('signingOut');
    try {
      await signOut();
      restart();
    } catch (error) {
      // This page has forgotten the session either way; say what went wrong, then go on.
      signOutButton.removeAttribute('aria-busy');
      signOutButton.textContent = t('signOutButton');
      signOutProblem.replaceChildren(errorBox(error),
        h('button', { type: 'button', class: 'primary', onclick: () => restart() }, t('continue')));
    }
  });

  main.append(
    h('h1', {}, t('title')),
    h('p', {}, h('a', { href: href('/me') }, `← ${t('back')}`)),
    section('language', t('language'), t('languageNote'), languages),
    section('transfer', t('transfer'), t('transferNote'), h('div', { class: 'row' }, makeCode), codeArea),
    section('signout', t('signOut'), t('signOutNote'), h('div', { class: 'row' }, signOutButton), signOutProblem),
    section('withdraw', t('withdraw'), t('withdrawNote'), withdrawForm));

  return () => {
    gone = true;
    clearInterval(countdown);
  };
}
