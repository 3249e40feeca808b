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
    by: '{nickname}의 카드', tagLink: '#{tag} 태그 보기', loadMore: '더 보기', retry: '다시 불러오기',
  },
  en: {
    like: 'Like', unlike: 'Unlike', likes: '{count} likes', comments: '{count} comments', story: 'Story',
    open: 'Open card', empty: 'No cards yet.', loading: 'Loading…', distance: '{distance} away', deleted: 'The original card was deleted',
    by: 'Card by {nickname}', tagLink: 'Cards tagged #{tag}', loadMore: 'Load more', retry: 'Try again',
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

// What changed on cards since this page loaded (likes, comments, deleted or reported), by card
// id: lists kept alive off screen (feed.js) catch up with it when they are shown again.
const changes = new Map();

/** Notes a change to a card (`{likedByMe, likeCount}`, `{commentCount}` or `{gone: true}`) and
 * shows it on every copy of the card on screen now. */
export function noteCardChange(id, change) {
  changes.set(id, { ...changes.get(id), ...change });
  for (const element of document.querySelectorAll('[data-test="card"]')) {
    if (element.dataset.cardId === id) element.soomSync?.();
  }
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
      noteCardChange(card.id, { likedByMe: result.liked, likeCount: result.likeCount });
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
  // As a link, its name is the card's own text (the picture behind it has alt ''), so each card
  // in a list is told apart by what it says.
  const content = h('div', {
    class: `card-content font-${FONTS.includes(card.font) ? card.font : 'default'}`, test: 'card-content',
    role: detail ? null : 'link', tabindex: detail ? null : '0',
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
  const commentsLink = h('a', { class: 'comments-link', href: href(`/cards/${encodeURIComponent(card.id)}`) }, t('comments', { count: card.commentCount }));
  const likes = likeControl(card);
  const article = h('article', { class: detail ? 'card card-detail-card' : 'card', test: 'card', dataset: { cardId: card.id }, 'aria-label': t('by', { nickname: author?.nickname ?? '' }) },
    h('header', { class: 'card-meta' },
      h('a', { class: 'author', href: href(`/users/${encodeURIComponent(author.id)}`) }, avatar(author), h('span', {}, author.nickname)),
      h('time', { datetime: card.createdAt, title: new Date(card.createdAt).toLocaleString() }, relativeTime(card.createdAt, language())),
      card.expiresAt ? h('span', { class: 'badge' }, t('story')) : null,
      card.distanceMeters != null ? h('span', { class: 'badge' }, t('distance', { distance: distanceText(card.distanceMeters) })) : null),
    card.parentDeleted ? h('p', { class: 'muted' }, t('deleted')) : null,
    content,
    card.tags?.length ? h('ul', { class: 'tags' }, card.tags.map((tag) =>
      h('li', {}, h('a', { class: 'tag-chip', href: href(`/tags/${encodeURIComponent(tag)}`), 'aria-label': t('tagLink', { tag }) }, `#${tag}`)))) : null,
    h('footer', { class: 'card-actions' }, likes, commentsLink));
  article.soomSync = () => {
    const change = changes.get(card.id);
    if (!change) return;
    if (change.gone) {
      (article.parentElement?.tagName === 'LI' ? article.parentElement : article).remove();
      return;
    }
    if (change.likeCount !== undefined) {
      card.likedByMe = change.likedByMe;
      card.likeCount = change.likeCount;
      likes.setAttribute('aria-pressed', String(change.likedByMe));
      likes.querySelector('[data-test="like-count"]').textContent = String(change.likeCount);
    }
    if (change.commentCount !== undefined) {
      card.commentCount = change.commentCount;
      commentsLink.textContent = t('comments', { count: change.commentCount });
    }
  };
  return article;
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
  let stop = () => {};
  // After a failed page: the error, and a button that asks for the same page again (the pager's
  // cursor did not move), then scrolling loads on as before.
  const retry = async (button) => {
    button.disabled = true;
    failed = false;
    status.textContent = t('loading');
    if ((await load()) && sentinel.isConnected) {
      stop();
      stop = onReachEnd(sentinel, load);
    }
  };
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
      const again = h('button', { type: 'button', class: 'ghost', test: 'retry', onclick: () => retry(again) }, t('retry'));
      status.replaceChildren(errorBox(error), again);
      return false;
    }
  };
  // The first page at once; the next ones as the reader nears the end.
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
    /** Brings cards kept off screen up to date with what changed meanwhile. */
    sync() {
      for (const article of list.querySelectorAll('[data-test="card"]')) article.soomSync?.();
      if (shown.size > 0 && !list.querySelector('[data-test="card"]') && pager.done && !failed) status.textContent = emptyText;
    },
  };
}
