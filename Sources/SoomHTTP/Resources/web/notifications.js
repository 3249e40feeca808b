// My notifications (`#/notifications`), newest first, loading on as I scroll. Each
// (`notification`) says what happened in a sentence and links to the card, tag or person, with
// a preview of its card (`notification-preview`); opening one marks it read. "Mark all read"
// reads them all. The header's badge is told. New ones arrive live on top (live.js), and a link
// leads to the settings of what is pushed and streamed (settings.js). Likes are private: a like's notification has no
// actor ("someone liked your card"), and any notification may come without one.

import { h, onReachEnd, relativeTime } from './dom.js';
import { api, pager } from './api.js';
import { strings, language } from './i18n.js';
import { errorBox, retryBox, showError } from './errors.js';
import { avatar, emptyState } from './card.js';
import { href } from './router.js';

const t = strings({
  ko: {
    title: '알림', readAll: '모두 읽음으로 표시', readAllDone: '모든 알림을 읽음으로 표시했어요.', unread: '읽지 않음',
    loading: '불러오는 중…', list: '알림 목록',
    empty: '아직 알림이 없어요. 누군가 내 카드에 공감하거나 댓글 카드를 달면, 또는 관심 태그로 새 카드가 올라오면 여기에 알려 드려요.', findTags: '관심 태그 찾기',
    markRead: '읽음으로 표시', note: '알림은 30일 동안 보관돼요.', settings: '알림 설정',
    previewGone: '이 카드는 삭제되었거나 볼 수 없어요.',
    card_liked_someone: '누군가 카드에 공감했어요.',
    card_commented_someone: '누군가 내 카드에 댓글 카드를 남겼어요.',
    followed_someone: '누군가 나를 팔로우하기 시작했어요.',
    favorite_tag_used_someone: '관심 태그 #{tag}을(를) 단 새 카드가 올라왔어요.',
    following_posted_someone: '팔로우하는 사람이 새 카드를 올렸어요.',
    card_liked: '{actor}님이 내 카드에 공감했어요.',
    card_commented: '{actor}님이 내 카드에 댓글 카드를 남겼어요.',
    followed: '{actor}님이 나를 팔로우하기 시작했어요.',
    favorite_tag_used: '{actor}님이 관심 태그 #{tag}을(를) 단 카드를 올렸어요.',
    following_posted: '팔로우하는 {actor}님이 새 카드를 올렸어요.',
    poll_closed: '참여한 투표가 끝났어요. 결과를 확인해 보세요.',
    card_hidden: '신고가 쌓여 내 카드가 숨겨졌어요. 다른 사람에게는 보이지 않고, 나는 열어 보거나 삭제할 수 있어요.',
    posting_restricted: '신고 누적으로 {until}까지 카드와 댓글을 쓸 수 없어요. 읽기는 그대로 돼요.',
    other: '새 알림이 있어요.', tagLink: '#{tag} 태그 보기', profileLink: '{actor}님의 프로필',
  },
  en: {
    title: 'Notifications', readAll: 'Mark all as read', readAllDone: 'All notifications are marked as read.', unread: 'Unread',
    loading: 'Loading…', list: 'Notifications',
    empty: 'No notifications yet. You are told here when someone likes or answers your cards, or when a new card carries one of your favourite tags.', findTags: 'Find tags to follow',
    markRead: 'Mark as read', note: 'Notifications are kept for 30 days.', settings: 'Notification settings',
    previewGone: 'This card was deleted or cannot be seen.',
    card_liked_someone: 'Someone liked your card.',
    card_commented_someone: 'Someone answered your card with a comment card.',
    followed_someone: 'Someone started following you.',
    favorite_tag_used_someone: 'A new card carries #{tag}, one of your favourite tags.',
    following_posted_someone: 'Someone you follow posted a new card.',
    card_liked: '{actor} liked your card.',
    card_commented: '{actor} answered your card with a comment card.',
    followed: '{actor} started following you.',
    favorite_tag_used: '{actor} posted a card tagged #{tag}, one of your favourite tags.',
    following_posted: '{actor}, whom you follow, posted a new card.',
    poll_closed: 'A poll you took part in has closed. See the results.',
    card_hidden: 'Your card was hidden after several reports. Others cannot see it; you can still open or delete it.',
    posting_restricted: 'Because of reports you cannot post cards or comments until {until}. Reading still works.',
    other: 'You have a new notification.', tagLink: 'Cards tagged #{tag}', profileLink: 'Profile of {actor}',
  },
});

const TYPES = ['card_liked', 'card_commented', 'followed', 'favorite_tag_used', 'following_posted', 'poll_closed', 'card_hidden', 'posting_restricted'];

function unreadChanged() {
  window.dispatchEvent(new Event('soom:unread-changed'));
}

/** The sentence for a notification: with its actor's nickname, or without one (a like, whose
 * liker stays private, or an account since gone) in a sentence of its own ("someone …"). */
function sentence(notification) {
  const until = notification.until ? new Date(notification.until).toLocaleString(language()) : '';
  const type = TYPES.includes(notification.type) ? notification.type : 'other';
  const actor = notification.actor?.nickname;
  const key = actor || t(`${type}_someone`) === `${type}_someone` ? type : `${type}_someone`;
  return t(key, { actor: actor ?? '', tag: notification.tag ?? '', until });
}

// The cards notifications point at, by id, for their previews: each fetched once while signed
// in (a 404 is kept as gone), forgotten when what I may see changes (a block) or I sign out.
const cards = new Map(); // card id → Promise of the card, or null when it is gone
function forgetCards() {
  cards.clear();
}
window.addEventListener('soom:feeds-stale', forgetCards);
window.addEventListener('soom:signed-out', forgetCards);

function cardFor(id) {
  if (!cards.has(id)) {
    const found = api('GET', '/cards/' + encodeURIComponent(id)).catch((error) => {
      if (error.status === 404) return null;
      cards.delete(id); // a hiccup: the next render asks again
      throw error;
    });
    cards.set(id, found);
  }
  return cards.get(id);
}

/** What the notification's card says (its picture and first words), filled in when it comes. */
function preview(id) {
  const box = h('span', { class: 'notif-preview', test: 'notification-preview' });
  cardFor(id).then((card) => {
    if (!card) {
      box.replaceChildren(h('span', { class: 'notif-preview-text muted' }, t('previewGone')));
      box.classList.add('notif-preview-gone');
      return;
    }
    box.replaceChildren(
      card.background?.url ? h('img', { class: 'notif-preview-image', src: card.background.url, alt: '', loading: 'lazy' }) : null,
      h('span', { class: 'notif-preview-text' }, card.content));
  }).catch(() => box.remove()); // no preview is no loss: the sentence and the link stay
  return box;
}

const ICONS = { card_liked: '♥', card_commented: '✎', followed: '+', favorite_tag_used: '#', following_posted: '✎' };

/** Where a notification leads: its card, else its tag, else its actor's profile (or nowhere). */
function target(notification) {
  if (notification.cardId) return href('/cards/' + encodeURIComponent(notification.cardId));
  if (notification.tag) return href('/tags/' + encodeURIComponent(notification.tag));
  if (notification.actor) return href('/users/' + encodeURIComponent(notification.actor.id));
  return null;
}

export function render(main) {
  let gone = false;
  const source = pager('/notifications');
  const entries = new Map(); // id → {notification, element, mark()}

  const list = h('ol', { class: 'notif-list', test: 'notification-list', 'aria-label': t('list') });
  const status = h('div', { class: 'list-status', 'aria-live': 'polite' }, h('p', { class: 'muted' }, t('loading')));
  const sentinel = h('div', { class: 'sentinel', 'aria-hidden': 'true' });
  const readAll = h('button', { type: 'button', class: 'ghost', test: 'mark-all-read' }, t('readAll'));
  const message = h('div', { class: 'notif-message', 'aria-live': 'polite' });

  main.append(
    h('div', { class: 'row notif-head' }, h('h1', {}, t('title')), readAll),
    h('p', { class: 'muted small' }, t('note'), ' ',
      h('a', { href: href('/settings/notifications'), test: 'notification-settings' }, t('settings'))),
    message,
    list, status, sentinel);

  const markRead = async (entry) => {
    if (entry.notification.read || entry.pending) return;
    entry.pending = true;
    try {
      await api('POST', '/notifications/' + encodeURIComponent(entry.notification.id) + '/read');
      entry.mark();
      unreadChanged();
    } catch (error) {
      // The page may already show the card: a toast reaches the person wherever they are.
      showError(error);
    } finally {
      entry.pending = false;
    }
  };

  const item = (notification) => {
    const link = target(notification);
    const unreadText = h('span', { class: 'visually-hidden notif-unread-text' }, t('unread') + ': ');
    const dot = h('span', { class: 'notif-dot', 'aria-hidden': 'true' });
    const time = h('time', { class: 'notif-time muted small', datetime: notification.createdAt, title: new Date(notification.createdAt).toLocaleString(language()) },
      relativeTime(notification.createdAt, language()));
    // Without a place to go, the entry is a button that only marks it read (and says so).
    const action = link || notification.read ? null : h('span', { class: 'visually-hidden' }, ` (${t('markRead')})`);
    const words = [unreadText, h('span', { class: 'notif-text' }, sentence(notification)), action,
      notification.cardId ? preview(notification.cardId) : null];
    const body = link
      ? h('a', { class: 'notif-body', href: link }, words)
      : h('button', { type: 'button', class: 'notif-body notif-button' }, words);
    const extra = [];
    if (notification.tag && notification.cardId) {
      extra.push(h('a', { class: 'tag-chip', href: href('/tags/' + encodeURIComponent(notification.tag)), 'aria-label': t('tagLink', { tag: notification.tag }) }, `#${notification.tag}`));
    }
    if (notification.actor && (notification.cardId || notification.tag)) {
      extra.push(h('a', { class: 'notif-actor', href: href('/users/' + encodeURIComponent(notification.actor.id)) },
        t('profileLink', { actor: notification.actor.nickname })));
    }
    const element = h('li', {
      class: notification.read ? 'notif' : 'notif notif-unread', test: 'notification',
      dataset: { id: notification.id, type: notification.type, read: String(notification.read) },
    },
    notification.actor ? avatar(notification.actor) : h('span', { class: 'avatar notif-icon', 'aria-hidden': 'true' }, ICONS[notification.type] ?? '!'),
    h('div', { class: 'notif-main' }, body, h('div', { class: 'row notif-meta' }, dot, time, extra)));
    const entry = {
      notification, element, pending: false,
      mark() {
        notification.read = true;
        element.classList.remove('notif-unread');
        element.dataset.read = 'true';
        unreadText.remove();
        action?.remove();
      },
    };
    // Opening any of its links (by mouse, touch or keyboard: all are clicks) marks it read.
    element.addEventListener('click', (event) => {
      if (event.target.closest('a, button')) markRead(entry);
    });
    entries.set(notification.id, entry);
    return element;
  };

  const load = async () => {
    try {
      const items = await source.next();
      if (gone) return false;
      for (const notification of items) {
        if (!entries.has(notification.id)) list.append(item(notification));
      }
      if (source.done && entries.size === 0) {
        const empty = emptyState(t('empty'), { label: t('findTags'), href: href('/tags') });
        empty.querySelector('p').dataset.test = 'notifications-empty';
        status.replaceChildren(empty);
      } else {
        status.replaceChildren();
      }
      return !source.done;
    } catch (error) {
      // The same page can be asked for again (the cursor did not move): scrolling goes on after.
      if (!gone) status.replaceChildren(retryBox(error, async () => {
        status.replaceChildren(h('p', { class: 'muted' }, t('loading')));
        stop();
        stop = onReachEnd(sentinel, load);
      }));
      return false;
    }
  };
  let stop = onReachEnd(sentinel, load);

  // A notification that arrives live (live.js) goes on top, unless the list has it already.
  const arrived = (event) => {
    const notification = event.detail;
    if (gone || !notification?.id || entries.has(notification.id)) return;
    if (entries.size === 0) status.replaceChildren();
    list.prepend(item(notification));
  };
  window.addEventListener('soom:notification', arrived);

  let busy = false;
  readAll.addEventListener('click', async () => {
    if (busy) return;
    busy = true;
    readAll.setAttribute('aria-busy', 'true');
    message.replaceChildren();
    try {
      await api('POST', '/notifications/read-all');
      if (gone) return;
      for (const entry of entries.values()) entry.mark();
      message.replaceChildren(h('p', { class: 'muted small' }, t('readAllDone')));
      unreadChanged();
    } catch (error) {
      if (!gone) message.replaceChildren(errorBox(error));
    } finally {
      busy = false;
      readAll.removeAttribute('aria-busy');
    }
  });

  return () => {
    gone = true;
    stop();
    window.removeEventListener('soom:notification', arrived);
  };
}
