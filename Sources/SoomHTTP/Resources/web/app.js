// Soom's web client: the shell (header, navigation, unread badge, compose button) and the
// screens behind hash routes. Started by index.html; no build step, no third-party code.
// On a phone the header is a bar on top; from 900 px on, a rail beside the content (styles.css).

import { h } from './dom.js';
import { strings, onLanguageChange, language } from './i18n.js';
import { errorBox } from './errors.js';
import { isSupported } from './device.js';
import { resume, currentAccount } from './session.js';
import { route, start, stop, href, navigate, currentPath } from './router.js';
import { watchUnread, unwatchUnread, refreshUnread } from './unread.js';
import { startLive, stopLive } from './live.js';
import { openComposer } from './compose.js';
import * as feed from './feed.js';
import * as detail from './detail.js';
import * as tags from './tags.js';
import * as profile from './profile.js';
import * as me from './me.js';
import * as notifications from './notifications.js';
import * as account from './account.js';
import * as settings from './settings.js';
import { renderStart, renderUnsupported } from './start.js';
import { checkVersion, showNewestNotice, renderNotices } from './status.js';

const t = strings({
  ko: { home: '홈', tags: '태그', notifications: '알림', me: '나', compose: '카드 쓰기', unread: '읽지 않은 알림 {count}개', main: '주요 메뉴', loading: '여는 중…', skip: '본문으로 건너뛰기' },
  en: { home: 'Home', tags: 'Tags', notifications: 'Notifications', me: 'Me', compose: 'New card', unread: '{count} unread', main: 'Main menu', loading: 'Opening…', skip: 'Skip to content' },
});

const main = document.querySelector('main');
const header = document.querySelector('header');

route('/', feed.render);
route('/feed/:tab', feed.render);
route('/cards/:id', detail.render);
route('/tags', tags.render);
route('/tags/:name', tags.renderTag);
route('/users/:id', profile.render);
route('/me', me.render);
route('/notifications', notifications.render);
route('/account', account.render);
route('/settings/notifications', settings.render);
route('/notices', renderNotices);

function shell() {
  composeButton.querySelector('.compose-label').textContent = t('compose');
  // The badge is for the eye; the link's name says the count in words ("알림, 읽지 않은 알림 3개").
  // Nothing unread: no badge at all (a grey "0" only draws the eye to nothing).
  const badge = h('span', { class: 'unread', test: 'unread-count', 'aria-hidden': 'true', hidden: true }, '0');
  const spoken = h('span', { class: 'visually-hidden' });
  const link = (path, label, extra = {}) => h('a', { href: href(path), class: 'nav-link', dataset: { path }, ...extra }, label);
  header.replaceChildren(
    h('button', { type: 'button', class: 'skip', onclick: () => main.focus() }, t('skip')),
    h('a', { class: 'brand', href: href('/') }, h('span', { 'aria-hidden': 'true' }, '숨'), h('span', { class: 'visually-hidden' }, 'Soom')),
    h('nav', { class: 'main-nav', 'aria-label': t('main') },
      link('/', t('home'), { test: 'nav-home' }),
      link('/tags', t('tags'), { test: 'nav-tags' }),
      link('/notifications', [t('notifications'), ' ', badge, spoken], { test: 'notifications' }),
      link('/me', t('me'), { test: 'nav-me' })),
    composeButton);
  watchUnread(badge, (count) => {
    spoken.textContent = count === '0' ? '' : `, ${t('unread', { count })}`;
  });
  markCurrent(currentPath());
}

const composeButton = h('button', { type: 'button', class: 'primary compose-button', test: 'compose', onclick: () => compose() },
  h('span', { 'aria-hidden': 'true' }, '+ '), h('span', { class: 'compose-label' }, ''));

/** The tag of a tag's screen (`/tags/NAME`), or null. */
function tagOf(path) {
  const match = /^\/tags\/([^/]+)$/.exec(path);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1];
  }
}

/** Where writing a card is what one came for: the feeds, the tags (on a tag's screen the card
 * gets the tag), my profile. Elsewhere (an open card has its comment form; settings,
 * notifications) the floating button would only cover controls, so it is not there. */
function composable(path) {
  return path === '/' || path.startsWith('/feed/') || path === '/me' || path === '/tags' || tagOf(path) !== null;
}

function markCurrent(path) {
  composeButton.hidden = !composable(path);
  for (const link of header.querySelectorAll('.nav-link')) {
    const target = link.dataset.path;
    const active = target === '/' ? path === '/' || path.startsWith('/feed/') : path.startsWith(target);
    if (active) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

function compose(tags = null) {
  const tag = tagOf(currentPath());
  openComposer({
    tags: tags ?? (tag ? [tag] : []),
    onPosted: (card) => {
      feed.showNewCard(card);
      if (currentPath() !== '/') navigate('/');
    },
  });
}

// While writes are paused for maintenance (status.js shows why), the compose button is off.
window.addEventListener('soom:maintenance', (event) => {
  composeButton.disabled = Boolean(event.detail?.until);
});

// Empty lists offer to write a card (card.js `composeCard`).
window.addEventListener('soom:compose', (event) => {
  if (currentAccount()) compose(event.detail?.tags ?? null);
});

function signedIn() {
  shell();
  startLive();
  start(main, (path) => {
    // The screen's name for the layout (styles.css: how wide it reads on a desktop).
    main.dataset.screen = path.split('/')[1] || 'feed';
    markCurrent(path);
    if (path === '/notifications') refreshUnread();
  });
}

// Signed out or withdrawn (account.js): no signed-in screen stays, nothing more is fetched.
window.addEventListener('soom:signed-out', (event) => {
  stop();
  stopLive();
  unwatchUnread();
  feed.forget();
  header.replaceChildren();
  history.replaceState(null, '', location.pathname);
  renderStart(main, signedIn, { lost: event.detail?.reason === 'account_not_found', withdrawn: event.detail?.reason === 'withdrawn' });
});

async function boot() {
  checkVersion();
  showNewestNotice();
  if (!isSupported()) {
    renderUnsupported(main);
    return;
  }
  main.replaceChildren(h('p', { class: 'muted', 'aria-live': 'polite' }, t('loading')));
  try {
    const state = await resume();
    if (state === 'signed-in') signedIn();
    else renderStart(main, signedIn, { lost: state === 'lost' });
  } catch (error) {
    main.replaceChildren(errorBox(error), h('button', { type: 'button', class: 'primary', onclick: () => location.reload() }, '↻'));
  }
}

// A language change redraws what is on screen in the new language.
onLanguageChange(() => {
  if (currentAccount()) {
    feed.forget();
    shell();
    navigate(currentPath());
  } else if (isSupported()) {
    renderStart(main, signedIn);
  } else {
    renderUnsupported(main);
  }
});
document.documentElement.lang = language();
boot();
