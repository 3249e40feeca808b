// The first screen of a browser without an account: make the device key and the account
// (`start`), with a suggested nickname one may change; or take over an account from another
// device with a transfer code; or sign in again after signing out.

import { h } from './dom.js';
import { strings, language, setLanguage } from './i18n.js';
import { describe } from './errors.js';
import { register, transferHere, suggestNickname, checkNickname, signInAgain, hasKeys } from './session.js';

const t = strings({
  ko: {
    title: '숨에 오신 걸 환영해요',
    intro: '이름도, 이메일도, 전화번호도 묻지 않아요. 이 브라우저가 만든 열쇠가 곧 내 계정이에요. 열쇠는 이 기기 밖으로 나가지 않아요.',
    nickname: '닉네임', nicknameHint: '1–8자. 나중에 바꿀 수 있어요.', start: '시작하기', starting: '열쇠를 만드는 중…',
    transfer: '다른 기기에서 옮겨 오기', code: '이전 코드', codeHint: '원래 기기의 설정 → 새 기기로 옮기기에서 받은 코드', move: '계정 옮겨 오기',
    again: '다시 로그인', againNote: '이 브라우저에는 이미 내 계정의 열쇠가 있어요. 다시 로그인하면 그 계정으로 돌아가요.',
    newAccount: '새 계정 만들기', newAccountNote: '새 계정을 만들면 이 브라우저의 열쇠가 바뀌어요.',
    confirmNew: '정말 새 계정을 만들까요? 이 브라우저에 있는 지금 계정의 열쇠가 지워져서, 그 계정에는 다시 들어갈 수 없어요. (먼저 다시 로그인한 뒤 설정 → 새 기기로 옮기기로 옮겨 둘 수 있어요.)',
    confirmYes: '네, 지금 계정을 버리고 새로 만들기', confirmNo: '취소',
    confirmMove: '정말 다른 계정을 이 브라우저로 옮겨 올까요? 이 브라우저에 있는 지금 계정의 열쇠가 지워져서, 그 계정에는 다시 들어갈 수 없어요.',
    confirmMoveYes: '네, 지금 계정을 버리고 옮겨 오기',
    lost: '이 기기의 계정이 다른 기기로 옮겨졌거나 탈퇴되어 로그아웃했어요. 이 기기의 열쇠는 지웠어요.',
    withdrawn: '탈퇴했어요. 계정과 카드, 댓글 카드, 공감, 팔로우, 알림을 모두 지웠고, 이 기기의 열쇠도 지웠어요. 그동안 숨과 함께해 주셔서 고마워요.',
    withdrawnRejoin: '이 기기로는 {when}부터 다시 가입할 수 있어요.',
    noSuggestion: '추천 닉네임을 받지 못했어요. 비워 두면 가입할 때 서버가 정해 줘요.', other: 'English',
    taken: '이미 쓰이는 닉네임이에요.', too_long: '8자까지 쓸 수 있어요.', empty: '닉네임을 입력해 주세요.', reserved: '쓸 수 없는 닉네임이에요.',
    invalid_characters: '글자, 숫자, 공백, _ . - 만 쓸 수 있어요.', available: '쓸 수 있어요.',
  },
  en: {
    title: 'Welcome to Soom',
    intro: 'No name, no e-mail, no phone number. A key this browser makes is your account, and it never leaves this device.',
    nickname: 'Nickname', nicknameHint: '1–8 characters. You can change it later.', start: 'Start', starting: 'Making your key…',
    transfer: 'Move here from another device', code: 'Transfer code', codeHint: 'From Settings → Move to a new device on your old device', move: 'Move my account here',
    again: 'Sign in again', againNote: 'This browser already holds the key to your account. Sign in again to go back to it.',
    newAccount: 'Make a new account', newAccountNote: 'Making a new account replaces this browser’s key.',
    confirmNew: 'Really make a new account? The key of your current account in this browser is deleted, and that account can never be reached again. (You can sign in again first and move it with Settings → Move to a new device.)',
    confirmYes: 'Yes, give up my account and start anew', confirmNo: 'Cancel',
    confirmMove: 'Really move another account into this browser? The key of your current account here is deleted, and that account can never be reached again.',
    confirmMoveYes: 'Yes, give up my account and move the other here',
    lost: 'This device’s account was moved to another device or withdrawn, so you were signed out here. This device’s key was deleted.',
    withdrawn: 'You have withdrawn. Your account, cards, comment cards, likes, follows and notifications are deleted, and so is this device’s key. Thank you for breathing with Soom.',
    withdrawnRejoin: 'This device can join again from {when}.',
    noSuggestion: 'No nickname suggestion came. Leave it empty and the server picks one when you join.', other: '한국어',
    taken: 'That nickname is taken.', too_long: 'At most 8 characters.', empty: 'Please enter a nickname.', reserved: 'That nickname is reserved.',
    invalid_characters: 'Letters, digits, spaces and _ . - only.', available: 'Available.',
  },
});

/**
 * Renders the start screen; `done()` runs once an account is signed in. `lost`: the account
 * of this browser's key is gone (moved away or withdrawn elsewhere): say so on top. `withdrawn`: the
 * person has just withdrawn here: confirm that everything is gone, and when they may join again.
 */
export function renderStart(main, done, { lost = false, withdrawn = false } = {}) {
  main.replaceChildren();
  const nickname = h('input', { id: 'start-nickname', type: 'text', maxlength: '40', autocomplete: 'off', 'aria-describedby': 'start-nickname-hint start-nickname-check' });
  const check = h('p', { id: 'start-nickname-check', class: 'muted small', 'aria-live': 'polite' });
  const problem = h('div', { 'aria-live': 'assertive' });
  // A key already here: signing in again is the first thing offered; a new account (which
  // replaces the key, losing that account for good) only after a clear confirmation.
  const keyHere = hasKeys();
  const button = h('button', { type: 'submit', class: keyHere ? 'ghost' : 'primary big', test: 'start' }, t(keyHere ? 'newAccount' : 'start'));
  const confirmArea = h('div', { class: 'stack', 'aria-live': 'assertive' });
  const fail = (error) => problem.replaceChildren(h('p', { class: 'error', role: 'alert', test: 'error' }, describe(error)));

  suggestNickname().then((name) => {
    if (!nickname.value) nickname.value = name;
  }).catch(() => {
    // Without a suggestion the server picks one at sign-up: nothing is lost, but say so.
    if (!check.textContent) check.textContent = t('noSuggestion');
  });
  let timer = null;
  nickname.addEventListener('input', () => {
    clearTimeout(timer);
    const value = nickname.value.trim();
    if (!value) {
      check.textContent = '';
      return;
    }
    timer = setTimeout(async () => {
      try {
        const result = await checkNickname(value);
        check.textContent = result.available ? t('available') : t(result.reason ?? 'taken');
        check.classList.toggle('error-text', !result.available);
      } catch (error) {
        check.textContent = describe(error);
      }
    }, 250);
  });

  const form = h('form', { class: 'stack start-form', novalidate: true },
    h('div', { class: 'field' }, h('label', { for: 'start-nickname' }, t('nickname')), nickname,
      h('p', { id: 'start-nickname-hint', class: 'muted small' }, t('nicknameHint')), check),
    keyHere ? h('p', { class: 'muted small' }, t('newAccountNote')) : null,
    problem, confirmArea, button);
  // With a key here, `action` (which replaces the key) runs only once confirmed in `area`.
  const askFirst = (area, action, back, test, words = 'confirmNew', yesWords = 'confirmYes') => {
    const yes = h('button', { type: 'button', class: 'danger', test, onclick: action }, t(yesWords));
    const no = h('button', { type: 'button', class: 'ghost', onclick: () => {
      area.replaceChildren();
      back.focus();
    } }, t('confirmNo'));
    area.replaceChildren(h('div', { class: 'stack start-confirm', role: 'alertdialog', 'aria-labelledby': `${test}-text` },
      h('p', { id: `${test}-text`, class: 'error-text' }, t(words)),
      h('div', { class: 'row end' }, no, yes)));
    no.focus();
  };
  const create = async () => {
    confirmArea.replaceChildren();
    button.disabled = true;
    button.textContent = t('starting');
    try {
      await register(nickname.value.trim() || null);
      done();
    } catch (error) {
      fail(error);
      button.disabled = false;
      button.textContent = t(keyHere ? 'newAccount' : 'start');
    }
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    problem.replaceChildren();
    if (!keyHere) return create();
    askFirst(confirmArea, create, button, 'start-confirm');
  });

  const code = h('input', { id: 'transfer-code', type: 'text', autocomplete: 'one-time-code', 'aria-describedby': 'transfer-code-hint' });
  const transferProblem = h('div', { 'aria-live': 'assertive' });
  const transferConfirm = h('div', { class: 'stack', 'aria-live': 'assertive' });
  const moveButton = h('button', { type: 'submit', class: 'ghost' }, t('move'));
  const transferForm = h('form', { class: 'stack', novalidate: true },
    h('div', { class: 'field' }, h('label', { for: 'transfer-code' }, t('code')), code, h('p', { id: 'transfer-code-hint', class: 'muted small' }, t('codeHint'))),
    transferProblem, transferConfirm, moveButton);
  // Moving an account here also replaces this browser's key: asked first too, when one is here.
  const move = async () => {
    transferConfirm.replaceChildren();
    try {
      await transferHere(code.value.trim());
      done();
    } catch (error) {
      transferProblem.replaceChildren(h('p', { class: 'error', role: 'alert', test: 'error' }, describe(error)));
    }
  };
  transferForm.addEventListener('submit', (event) => {
    event.preventDefault();
    transferProblem.replaceChildren();
    if (!keyHere) return move();
    askFirst(transferConfirm, move, moveButton, 'transfer-confirm', 'confirmMove', 'confirmMoveYes');
  });

  const againProblem = h('div', { 'aria-live': 'assertive' });
  const againButton = keyHere ? h('button', { type: 'button', class: 'primary big', onclick: async () => {
    againProblem.replaceChildren();
    againButton.disabled = true;
    try {
      if (await signInAgain()) done();
      else renderStart(main, done);
    } catch (error) {
      if (error?.code === 'account_not_found') return renderStart(main, done, { lost: true });
      againProblem.replaceChildren(h('p', { class: 'error', role: 'alert', test: 'error' }, describe(error)));
      againButton.disabled = false;
    }
  } }, t('again')) : null;
  const again = keyHere ? h('section', { class: 'stack' }, h('p', {}, t('againNote')), againProblem, againButton) : null;

  main.append(h('section', { class: 'stack start' },
    h('div', { class: 'row end' }, h('button', { type: 'button', class: 'ghost small', lang: language() === 'ko' ? 'en' : 'ko',
      onclick: () => setLanguage(language() === 'ko' ? 'en' : 'ko') }, t('other'))),
    h('h1', {}, t('title')),
    lost ? h('p', { class: 'notice', role: 'status', test: 'signed-out-notice' }, t('lost')) : null,
    withdrawn ? h('div', { class: 'notice stack', role: 'status', test: 'withdrawn-notice' },
      h('p', {}, t('withdrawn')),
      h('p', { class: 'small' }, t('withdrawnRejoin', { when: new Date(Date.now() + 7 * 86400000).toLocaleDateString(language(), { dateStyle: 'long' }) }))) : null,
    h('p', {}, t('intro')), again,
    keyHere ? h('h2', {}, t('newAccount')) : null, form,
    h('details', { class: 'transfer' }, h('summary', {}, t('transfer')), transferForm)));
  (againButton ?? button).focus();
}

const unsupported = strings({
  ko: { title: '이 브라우저에서는 숨을 쓸 수 없어요', body: '숨은 기기 열쇠를 WebCrypto로 만들어요. WebCrypto는 보안 연결(HTTPS)이나 이 컴퓨터 주소(localhost, 127.0.0.1)에서만 열려요. HTTPS 주소로 접속하거나 운영자에게 문의해 주세요.' },
  en: { title: 'Soom cannot run in this browser here', body: 'Soom makes its device key with WebCrypto, which browsers offer only on a secure connection (HTTPS) or on this computer (localhost, 127.0.0.1). Open Soom over HTTPS, or ask its operator.' },
});

/** What a browser without WebCrypto (not a secure context) sees instead of a blank page. */
export function renderUnsupported(main) {
  main.replaceChildren(h('section', { class: 'stack start', role: 'alert', test: 'error' }, h('h1', {}, unsupported('title')), h('p', {}, unsupported('body'))));
}
