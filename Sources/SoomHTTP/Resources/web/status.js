// What the operators tell this client, in a strip under the header (`status-bar`), shown to
// everyone, signed in or not:
// - the update prompt: this client reports its own version (`CLIENT_VERSION`) to
//   `GET /v1/client-versions/web`; `update_available` offers a reload, `update_required` asks
//   for one and makes the page inert until then (a newer server serves the newer client);
// - the maintenance banner while writes are refused (api.js learns it from a `503
//   maintenance` and pauses writes), until its end or until a write goes through; the compose
//   button is disabled meanwhile;
// - the newest notice (`GET /v1/notices`) until it is dismissed (its id is kept in
//   localStorage, nothing else), with a link to all notices (`#/notices`).

import { h, relativeTime, onReachEnd } from './dom.js';
import { api, pager } from './api.js';
import { strings, language, readPreference, writePreference } from './i18n.js';
import { errorBox } from './errors.js';

/** This web client's version, MAJOR.MINOR.PATCH: raise it with every change to these files. */
export const CLIENT_VERSION = '1.4.1';
const DISMISSED_KEY = 'soom.dismissedNotice';

const t = strings({
  ko: {
    updateAvailable: '새 버전이 나왔어요.', updateRequired: '이 버전은 더 이상 쓸 수 없어요. 새로고침해서 새 버전을 받아 주세요.',
    reload: '새로고침', maintenance: '서버 점검 중이에요. {when}쯤 끝나요. 읽기는 되지만 글쓰기·공감·수정은 잠시 멈춰요.',
    dismiss: '닫기', allNotices: '모든 공지', notices: '공지', empty: '아직 공지가 없어요.', more: '자세히 보기',
    notice: '공지', news: '소식',
  },
  en: {
    updateAvailable: 'A new version is out.', updateRequired: 'This version can no longer be used. Reload to get the new one.',
    reload: 'Reload', maintenance: 'The server is under maintenance until about {when}. Reading works; posting, liking and changes are paused.',
    dismiss: 'Dismiss', allNotices: 'All notices', notices: 'Notices', empty: 'No notices yet.', more: 'Read more',
    notice: 'Notice', news: 'News',
  },
});

const bar = document.getElementById('status');
const slots = { version: h('div'), maintenance: h('div'), notice: h('div') };
bar?.replaceChildren(slots.version, slots.maintenance, slots.notice);

function banner(test, kind, ...children) {
  return h('div', { class: `banner ${kind}`, test, role: kind === 'warning' ? 'alert' : 'status' }, ...children);
}

/** Asks whether this client should update, and says so. */
export async function checkVersion() {
  let answer;
  try {
    answer = await api('GET', `/client-versions/web?version=${CLIENT_VERSION}`, { auth: false });
  } catch {
    return; // Not knowing is no reason to stop anyone.
  }
  if (answer.status === 'ok') {
    slots.version.replaceChildren();
    return;
  }
  const required = answer.status === 'update_required';
  slots.version.replaceChildren(
    banner(required ? 'update-required' : 'update-available', required ? 'warning' : 'info',
      h('span', {}, required ? t('updateRequired') : t('updateAvailable')),
      h('button', { type: 'button', class: 'primary', test: 'reload', onclick: () => location.reload() }, t('reload'))));
  document.querySelector('main').inert = required;
  document.querySelector('header').inert = required;
}

// Which maintenance banner is shown: a timer of an earlier one must not end a later one.
let shownMaintenance = 0;

/** Shows or clears the maintenance banner (`until`: a Date, or null when it ended). */
function showMaintenance(until) {
  document.body.classList.toggle('maintenance', Boolean(until));
  shownMaintenance += 1;
  if (!until) {
    slots.maintenance.replaceChildren();
    return;
  }
  const shown = shownMaintenance;
  const when = until.toLocaleString(language(), { dateStyle: 'medium', timeStyle: 'short' });
  slots.maintenance.replaceChildren(banner('maintenance-banner', 'warning', h('span', {}, t('maintenance', { when }))));
  // Past its end the banner goes and writing comes back for everyone listening (the compose
  // button). (A write that goes through before then ends it too: api.js.)
  const left = Math.min(until.getTime() - Date.now(), 2 ** 31 - 1);
  setTimeout(() => {
    if (shown === shownMaintenance) window.dispatchEvent(new CustomEvent('soom:maintenance', { detail: { until: null } }));
  }, Math.max(left, 1000));
}
window.addEventListener('soom:maintenance', (event) => showMaintenance(event.detail?.until ?? null));

/** Shows the newest notice unless it was dismissed. */
export async function showNewestNotice() {
  let page;
  try {
    page = await api('GET', '/notices?limit=1', { auth: false });
  } catch {
    return;
  }
  const notice = page.items[0];
  if (!notice || readPreference(DISMISSED_KEY) === notice.id) {
    slots.notice.replaceChildren();
    return;
  }
  slots.notice.replaceChildren(
    banner('notice-banner', notice.kind === 'maintenance' ? 'warning' : 'info',
      h('strong', {}, notice.title), ' ', h('span', {}, notice.body), ' ',
      notice.url ? h('a', { href: notice.url, target: '_blank', rel: 'noopener noreferrer' }, t('more')) : null, ' ',
      h('a', { href: '#/notices', test: 'all-notices' }, t('allNotices')),
      h('button', { type: 'button', test: 'dismiss-notice', onclick: () => {
        writePreference(DISMISSED_KEY, notice.id);
        slots.notice.replaceChildren();
      } }, t('dismiss'))));
}

/** `#/notices`: every notice, newest first, loading on as one scrolls. */
export function renderNotices(main) {
  const list = h('ul', { class: 'notice-list', test: 'notices' });
  const sentinel = h('div');
  const status = h('div');
  main.replaceChildren(h('h1', {}, t('notices')), list, status, sentinel);
  const pages = pager('/notices', {}, 20);
  let shown = 0;
  const load = async () => {
    try {
      const items = await pages.next();
      for (const notice of items) {
        shown += 1;
        list.append(h('li', { class: 'notice-item', test: 'notice' },
          h('p', { class: 'muted' }, `${t(notice.kind === 'news' ? 'news' : 'notice')} · ${relativeTime(notice.createdAt, language())}`),
          h('h2', {}, notice.title), h('p', {}, notice.body),
          notice.url ? h('a', { href: notice.url, target: '_blank', rel: 'noopener noreferrer' }, t('more')) : null));
      }
      if (pages.done && shown === 0) status.replaceChildren(h('p', { class: 'muted' }, t('empty')));
      return !pages.done;
    } catch (error) {
      status.replaceChildren(errorBox(error));
      return false;
    }
  };
  onReachEnd(sentinel, load);
}
