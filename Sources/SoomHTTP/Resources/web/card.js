// A card as people see it: the text over its background, in its font, with the author, time,
// tags, likes (공감) and comments. Lists of cards page with the contract's cursors as the
// reader scrolls.

import { h, onReachEnd, relativeTime } from './dom.js';
import { api } from './api.js';
import { strings, language } from './i18n.js';
import { showError, errorBox } from './errors.js';
import { href, navigate } from './router.js';

const t = strings({
  ko: {
    like: '공감', unlike: '공감 취소', likes: '공감 {count}', comments: '댓글 {count}', story: '스토리',
    open: '카드 열기', empty: '아직 카드가 없어요.', loading: '불러오는 중…', distance: '{distance} 거리', deleted: '원래 카드가 삭제되었어요',
    by: '{nickname}의 카드', tagLink: '#{tag} 태그 보기', loadMore: '더 보기',
  },
  en: {
    like: 'Like', unlike: 'Unlike', likes: '{count} likes', comments: '{count} comments', story: 'Story',
    open: 'Open card', empty: 'No cards yet.', loading: 'Loading…', distance: '{distance} away', deleted: 'The original card was deleted',
    by: 'Card by {nickname}', tagLink: 'Cards tagged #{tag}', loadMore: 'Load more',
  },
});

export const FONTS = ['default', 'serif', 'handwriting', 'rounded'];

function distanceText(meters) {
  return meters < 1000 ? `${meters} m` : `${Math.round(meters / 1000)} km`;
}

/** The picture behind a card or a profile (`{kind, url}`), as a decorative <img>. */
export function backgroundImage(image, className = 'card-background') {
  if (!image?.url) return null;
  return h('img', { class: className, src: image.url, alt: '', loading: 'lazy', decoding: 'async' });
}

/** The small round picture of a person. */
export function avatar(user) {
  return user?.profileImage?.url
    ? h('img', { class: 'avatar', src: user.profileImage.url, alt: '', loading: 'lazy' })
    : h('span', { class: 'avatar avatar-empty', 'aria-hidden': 'true' }, (user?.nickname ?? '?').slice(0, 1));
}

/** A like button and count that toggle together (`like`, `like-count`). */
function likeControl(card) {
  const count = h('span', { class: 'count', test: 'like-count' }, String(card.likeCount));
  const button = h('button', { type: 'button', class: 'like', test: 'like', 'aria-pressed': String(card.likedByMe) },
    h('span', { 'aria-hidden': 'true' }, '♥'), h('span', { class: 'visually-hidden' }, t('like')), ' ', count);
  let busy = false;
  button.addEventListener('click', async () => {
    if (busy) return;
    busy = true;
    const liked = button.getAttribute('aria-pressed') !== 'true';
    try {
      const result = await api(liked ? 'PUT' : 'DELETE', `/cards/${encodeURIComponent(card.id)}/like`);
      card.likedByMe = result.liked;
      card.likeCount = result.likeCount;
      button.setAttribute('aria-pressed', String(result.liked));
      count.textContent = String(result.likeCount);
    } catch (error) {
      showError(error);
    } finally {
      busy = false;
    }
  });
  return button;
}

/** One card (`card`, with `data-card-id`); `detail` shows it as the open card. */
export function cardElement(card, { detail = false } = {}) {
  const open = () => navigate(`/cards/${encodeURIComponent(card.id)}`);
  const content = h('div', {
    class: `card-content font-${FONTS.includes(card.font) ? card.font : 'default'}`, test: 'card-content',
    role: detail ? null : 'link', tabindex: detail ? null : '0', 'aria-label': detail ? null : t('open'),
  },
  backgroundImage(card.background),
  h('p', { class: 'card-text' }, card.content));
  if (!detail) {
    content.addEventListener('click', open);
    content.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        open();
      }
    });
  }
  const author = card.author;
  return h('article', { class: detail ? 'card card-detail-card' : 'card', test: 'card', dataset: { cardId: card.id }, 'aria-label': t('by', { nickname: author?.nickname ?? '' }) },
    h('header', { class: 'card-meta' },
      h('a', { class: 'author', href: href(`/users/${encodeURIComponent(author.id)}`) }, avatar(author), h('span', {}, author.nickname)),
      h('time', { datetime: card.createdAt, title: new Date(card.createdAt).toLocaleString() }, relativeTime(card.createdAt, language())),
      card.expiresAt ? h('span', { class: 'badge' }, t('story')) : null,
      card.distanceMeters != null ? h('span', { class: 'badge' }, t('distance', { distance: distanceText(card.distanceMeters) })) : null),
    card.parentDeleted ? h('p', { class: 'muted' }, t('deleted')) : null,
    content,
    card.tags?.length ? h('ul', { class: 'tags' }, card.tags.map((tag) =>
      h('li', {}, h('a', { class: 'tag-chip', href: href(`/tags/${encodeURIComponent(tag)}`), 'aria-label': t('tagLink', { tag }) }, `#${tag}`)))) : null,
    h('footer', { class: 'card-actions' },
      likeControl(card),
      h('a', { class: 'comments-link', href: href(`/cards/${encodeURIComponent(card.id)}`) }, t('comments', { count: card.commentCount }))));
}

/**
 * A list of cards from a `pager` (see api.js), loading the next page as the reader nears the
 * end. `test` is the list's data-test hook. Returns `{element, prepend(card), stop()}`.
 */
export function cardList(pager, { test = null, label = '', emptyText = t('empty') } = {}) {
  const list = h('ol', { class: 'card-list', test, 'aria-label': label || null });
  const status = h('p', { class: 'muted list-status', 'aria-live': 'polite' }, t('loading'));
  const sentinel = h('div', { class: 'sentinel', 'aria-hidden': 'true' });
  const element = h('section', { class: 'card-list-wrap' }, list, status, sentinel);
  const shown = new Set();
  let failed = false;
  const load = async () => {
    try {
      const items = await pager.next();
      for (const card of items) {
        if (shown.has(card.id)) continue;
        shown.add(card.id);
        list.append(h('li', {}, cardElement(card)));
      }
      status.textContent = pager.done ? (shown.size === 0 ? emptyText : '') : '';
      return !pager.done;
    } catch (error) {
      failed = true;
      status.replaceChildren(errorBox(error));
      return false;
    }
  };
  // The first page at once; the next ones as the reader nears the end.
  let stop = () => {};
  load().then((more) => {
    if (more && sentinel.isConnected) stop = onReachEnd(sentinel, load);
  });
  return {
    element,
    prepend(card) {
      if (shown.has(card.id)) return;
      shown.add(card.id);
      list.prepend(h('li', {}, cardElement(card)));
      if (!failed) status.textContent = '';
    },
    stop: () => stop(),
  };
}
