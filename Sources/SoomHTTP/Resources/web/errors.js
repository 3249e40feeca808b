// Errors from the API, shown to the person in words (never swallowed): a sentence for the
// contract's error code, else the server's own message, else the status.

import { h } from './dom.js';
import { strings, language } from './i18n.js';

const t = strings({
  ko: {
    network: '서버에 연결할 수 없어요. 인터넷 연결을 확인해 주세요.',
    push_service_unavailable: '브라우저가 알림 서비스에 연결하지 못했어요. 잠시 뒤에 다시 시도해 주세요.',
    push_subscription_limit: '알림을 받는 기기는 5개까지예요. 다른 기기에서 알림을 끈 뒤 다시 시도해 주세요.',
    unauthorized: '다시 로그인해야 해요.',
    invalid_signature: '기기 서명을 확인하지 못했어요. 다시 시도해 주세요.',
    account_not_found: '이 기기의 계정을 찾을 수 없어요.',
    device_already_registered: '이 기기는 이미 가입되어 있어요.',
    nickname_taken: '이미 쓰이는 닉네임이에요.',
    rejoin_not_allowed: '탈퇴한 뒤 7일이 지나야 다시 가입할 수 있어요.',
    rejoinAt: '탈퇴한 뒤 7일이 지나야 다시 가입할 수 있어요. {when}부터 가입할 수 있어요.',
    maintenance: '서버 점검 중이에요. 글쓰기·수정은 잠시 뒤에 다시 해 주세요.',
    maintenanceUntil: '서버 점검 중이에요. {when}쯤 끝나요. 읽기는 지금도 할 수 있어요.',
    idempotency_key_reused: '같은 요청이 다른 내용으로 다시 보내졌어요. 내용을 확인하고 다시 시도해 주세요.',
    invalid_public_key: '이 브라우저가 만든 기기 열쇠를 서버가 받지 않았어요. 다른 브라우저로 시도해 주세요.',
    method_not_allowed: '이 기능은 지원되지 않아요. 페이지를 새로고침해 주세요.',
    retryIn: '{count}초 뒤에 다시 시도해 주세요.',
    validation_failed: '입력한 내용을 확인해 주세요.',
    invalid_request: '요청이 올바르지 않아요.',
    not_found: '찾을 수 없어요. 삭제되었거나 볼 수 없는 내용이에요.',
    not_owner: '내 카드만 삭제할 수 있어요.',
    already_reported: '이미 신고한 카드예요.',
    poll_closed: '투표가 이미 마감됐어요.',
    account_restricted: '신고 누적으로 {until}까지 글을 쓸 수 없어요.',
    rate_limited: '요청이 너무 많아요. 잠시 뒤에 다시 시도해 주세요.',
    payload_too_large: '파일이 너무 커요 (최대 5 MiB).',
    unsupported_media_type: 'JPEG, PNG, WebP 사진만 올릴 수 있어요.',
    favorite_limit: '관심 태그는 9개까지예요.',
    blocked: '차단한 사용자예요. 차단을 풀어야 팔로우할 수 있어요.',
    timeout: '서버가 너무 오래 걸렸어요. 다시 시도해 주세요.',
    database_unavailable: '서버가 잠시 응답하지 않아요. 잠시 뒤에 다시 시도해 주세요.',
    invalid_cursor: '목록을 이어서 불러오지 못했어요. 새로고침해 주세요.',
    geolocation: '위치를 가져오지 못했어요. 브라우저의 위치 권한을 확인해 주세요.',
    unknown: '문제가 생겼어요 ({status}).',
    http_405: '이 기능은 지원되지 않아요. 페이지를 새로고침해 주세요.',
    dismiss: '닫기',
    retry: '다시 불러오기',
    field: '항목: {field}',
  },
  en: {
    network: 'Cannot reach the server. Check your connection.',
    push_service_unavailable: 'The browser could not reach its notification service. Please try again later.',
    push_subscription_limit: 'Notifications go to at most 5 devices. Turn them off on another one, then try again.',
    unauthorized: 'Please sign in again.',
    invalid_signature: 'The device signature was not accepted. Please try again.',
    account_not_found: 'No account was found for this device.',
    device_already_registered: 'This device already has an account.',
    nickname_taken: 'That nickname is taken.',
    rejoin_not_allowed: 'You can join again 7 days after withdrawing.',
    rejoinAt: 'You can join again 7 days after withdrawing: from {when}.',
    maintenance: 'The server is under maintenance. Please post or change things again a little later.',
    maintenanceUntil: 'The server is under maintenance until about {when}. Reading still works.',
    idempotency_key_reused: 'The same request was sent again with different content. Please check it and try again.',
    invalid_public_key: 'The server did not accept the device key this browser made. Please try another browser.',
    method_not_allowed: 'This is not supported. Please reload the page.',
    retryIn: { one: 'Please try again in {count} second.', other: 'Please try again in {count} seconds.' },
    validation_failed: 'Please check what you entered.',
    invalid_request: 'The request was not valid.',
    not_found: 'Not found: it was deleted or you cannot see it.',
    not_owner: 'You can only delete your own cards.',
    already_reported: 'You already reported this card.',
    poll_closed: 'This poll has already closed.',
    account_restricted: 'Because of reports you cannot post until {until}.',
    rate_limited: 'Too many requests. Please try again in a moment.',
    payload_too_large: 'That file is too large (at most 5 MiB).',
    unsupported_media_type: 'Only JPEG, PNG and WebP photos can be uploaded.',
    favorite_limit: 'You can keep at most 9 favourite tags.',
    blocked: 'You blocked this person. Unblock them to follow.',
    timeout: 'The server took too long. Please try again.',
    database_unavailable: 'The server is not answering right now. Please try again soon.',
    invalid_cursor: 'Could not load more. Please reload.',
    geolocation: 'Could not get your location. Check the browser’s location permission.',
    unknown: 'Something went wrong ({status}).',
    http_405: 'This is not supported. Please reload the page.',
    dismiss: 'Close',
    retry: 'Try again',
    field: 'Field: {field}',
  },
});

/** The words for an error (an ApiError, a geolocation error, or anything thrown). */
export function describe(error) {
  if (error?.code === 'account_restricted') {
    const until = error.details?.restrictedUntil ? new Date(error.details.restrictedUntil).toLocaleString() : '';
    return t('account_restricted', { until });
  }
  const when = (iso) => (iso && !Number.isNaN(Date.parse(iso)) ? new Date(iso).toLocaleString(language()) : null);
  if (error?.code === 'rejoin_not_allowed' && when(error.details?.rejoinAvailableAt)) {
    return t('rejoinAt', { when: when(error.details.rejoinAvailableAt) });
  }
  if (error?.code === 'maintenance' && when(error.details?.until)) {
    return t('maintenanceUntil', { when: when(error.details.until) });
  }
  if (error?.code === 'rate_limited' && error.retryAfter) {
    return `${t('rate_limited')} ${t('retryIn', { count: Math.ceil(error.retryAfter) })}`;
  }
  if (error?.code && t(error.code) !== error.code) {
    const sentence = t(error.code);
    // Validation: the server's message says what rule was broken; keep it.
    if (error.code === 'validation_failed' && error.message) return `${sentence} ${error.message}`;
    return sentence;
  }
  if (error?.message) return error.message;
  return t('unknown', { status: error?.status ?? '?' });
}

/** An inline error box (`data-test="error"`), with role=alert so screen readers announce it. */
export function errorBox(error) {
  return h('p', { class: 'error', role: 'alert', test: 'error' }, describe(error));
}

/** An error with a button (`retry`) that runs `again()`: for everything that failed to load
 * and can be asked for once more. The button is disabled while `again` runs. */
export function retryBox(error, again) {
  const button = h('button', { type: 'button', class: 'ghost', test: 'retry' }, t('retry'));
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      await again();
    } finally {
      button.disabled = false;
    }
  });
  return h('div', { class: 'row retry-box' }, errorBox(error), button);
}

let toastArea = null;

/** Shows an error at the bottom of the screen until dismissed (or 8 seconds pass). */
export function showError(error) {
  // Already said elsewhere (the start screen after the account moved away).
  if (error?.handled) return;
  if (!toastArea) {
    toastArea = h('div', { class: 'toasts', 'aria-live': 'assertive' });
    document.body.append(toastArea);
  }
  const toast = h('div', { class: 'toast error', role: 'alert', test: 'error' },
    h('span', {}, describe(error)),
    h('button', { type: 'button', class: 'ghost', 'aria-label': t('dismiss'), onclick: () => toast.remove() }, '×'));
  toastArea.append(toast);
  setTimeout(() => toast.remove(), 8000);
}
