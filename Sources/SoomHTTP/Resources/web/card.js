// A card as people see it: the text over its background, in its font, with the author, time,
// tags, likes (공감) and comments. Lists of cards page with the contract's cursors as the
// reader scrolls.

import { h, onReachEnd, relativeTime } from './dom.js';
import { api } from './api.js';
import { strings, language } from './i18n.js';
import { showError, errorBox } from './errors.js';
import { href, navigate } from './router.js';
import { pollElement } from './poll.js';

const t = strings({
  ko: {
    like: '공감', unlike: '공감 취소', likes: '공감 {count}', comments: '댓글 {count}', views: '조회 {count}', commented: '내가 답함', story: '스토리',
    open: '카드 열기', empty: '아직 카드가 없어요.', loading: '불러오는 중…', distance: '{distance} 거리', deleted: '원래 카드가 삭제되었어요',
    by: '{nickname}의 카드', tagLink: '#{tag} 태그 보기', loadMore: '더 보기', retry: '다시 불러오기', operator: '운영', pinned: '고정',
  },
  en: {
    like: 'Like', unlike: 'Unlike', likes: { one: '{count} like', other: '{count} likes' },
    comments: { one: '{count} comment', other: '{count} comments' }, views: { one: '{count} view', other: '{count} views' }, commented: 'You answered', story: 'Story',
    open: 'Open card', empty: 'No cards yet.', loading: 'Loading…', distance: '{distance} away', deleted: 'The original card was deleted',
    by: 'Card by {nickname}', tagLink: 'Cards tagged #{tag}', loadMore: 'Load more', retry: 'Try again', operator: 'Official', pinned: 'Pinned',
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

// Legible text over any picture without greying the picture: the text is white or dark ink,
// whichever needs less help, on a soft "plate" (a veil of the opposite colour behind the text
// only, feathered at its edges: styles.css) just strong enough that even the brightest (for
// white) or darkest (for ink) 2 % of the picture's middle keeps 4.5:1 or more. Measured once per
// picture (all of them come from this origin, so a canvas may read them), kept by URL.
const inks = new Map(); // url → {ink: 'light' | 'dark', plate}
let canvas = null;
const SIDE = 32;

function luminance(r, g, b) {
  const linear = (v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  return 0.2126 * linear(r / 255) + 0.7152 * linear(g / 255) + 0.0722 * linear(b / 255);
}

function encode(l) {
  return l <= 0.0031308 ? 12.92 * l : 1.055 * l ** (1 / 2.4) - 0.055;
}

function measureInk(image) {
  canvas ??= h('canvas', { width: String(SIDE), height: String(SIDE) });
  const context = canvas.getContext('2d', { willReadFrequently: true });
  // The middle square: what a card shows of a picture of any shape (object-fit: cover).
  const side = Math.min(image.naturalWidth, image.naturalHeight);
  context.drawImage(image, (image.naturalWidth - side) / 2, (image.naturalHeight - side) / 2, side, side, 0, 0, SIDE, SIDE);
  const data = context.getImageData(0, 0, SIDE, SIDE).data;
  const values = [];
  for (let i = 0; i < data.length; i += 4) values.push(luminance(data[i], data[i + 1], data[i + 2]));
  values.sort((a, b) => a - b);
  const darkest = values[Math.floor(values.length * 0.02)];
  const brightest = values[Math.ceil(values.length * 0.98) - 1];
  // White text (luminance 1) keeps 4.5:1 up to a background of 0.183; aim at 0.15. A black
  // veil of opacity a scales the encoded values by (1 − a), the luminance by about (1 − a)^2.2.
  const forLight = brightest <= 0.15 ? 0 : 1 - (0.15 / brightest) ** (1 / 2.2);
  // The ink (#1d1d1b, luminance 0.012) keeps 4.5:1 from a background of 0.23; aim at 0.28.
  const target = encode(0.28);
  const low = encode(darkest);
  const forDark = low >= target ? 0 : (target - low) / (1 - low);
  // White reads better over photographs: it wins unless it needs clearly more veil.
  return forLight <= forDark + 0.1 ? { ink: 'light', plate: forLight } : { ink: 'dark', plate: forDark };
}

function showInk(content, found) {
  content.dataset.ink = found.ink;
  content.style.setProperty('--plate', found.plate.toFixed(2));
}

/** Keeps the text of `content` (a `card-content`) legible over `image`, now and whenever the
 * image (re)loads (the composer's preview changes its picture). */
export function fitInk(content, image) {
  if (!image) return;
  const apply = () => {
    if (!image.naturalWidth) return;
    let found = inks.get(image.src);
    if (!found) {
      try {
        found = measureInk(image);
      } catch {
        return; // unreadable (it never is from this origin): the default white on a strong veil
      }
      inks.set(image.src, found);
    }
    showInk(content, found);
  };
  const known = inks.get(image.src);
  if (known) showInk(content, known);
  image.addEventListener('load', apply);
  if (image.complete) apply();
}

/**
 * What an empty list says: `text` (what would be here, and why it is empty), and a way on:
 * `action` = `{label, href}` (a link) or `{label, run}` (a button). `data-test="empty"`.
 */
export function emptyState(text, action = null) {
  let way = null;
  if (action?.href) way = h('a', { class: 'button primary', href: action.href }, action.label);
  else if (action?.run) way = h('button', { type: 'button', class: 'primary', onclick: action.run }, action.label);
  return h('div', { class: 'empty-state', test: 'empty' }, h('p', {}, text), way);
}

/** Asks the shell to open the composer (app.js), with `tags` filled in. */
export function composeCard(tags = []) {
  window.dispatchEvent(new CustomEvent('soom:compose', { detail: { tags } }));
}

/** The badge that marks the built-in operator account (`isOperator`), or null. */
export function operatorBadge(user) {
  return user?.isOperator ? h('span', { class: 'badge operator', test: 'operator-badge' }, t('operator')) : null;
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

/** Notes a change to a card (`{likedByMe, likeCount}`, `{commentCount, commentedByMe}`, `{poll}` or `{gone: true}`) and
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
  const picture = backgroundImage(card.background);
  const content = h('div', {
    class: `card-content font-${FONTS.includes(card.font) ? card.font : 'default'}`, test: 'card-content',
    role: detail ? null : 'link', tabindex: detail ? null : '0',
  },
  picture,
  h('p', { class: 'card-text', test: 'card-text' }, card.content));
  fitInk(content, picture);
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
  const commentsLink = h('a', { class: 'comments-link', test: 'comment-count', href: href(`/cards/${encodeURIComponent(card.id)}`) },
    t('comments', { count: card.commentCount }));
  const likes = likeControl(card);
  // "I answered this": shown when the reader wrote a live comment card on it.
  const answered = h('span', { class: 'badge commented', test: 'commented-by-me', hidden: !card.commentedByMe }, t('commented'));
  const poll = card.poll ? pollElement(card, (updated) => noteCardChange(card.id, { poll: updated })) : null;
  const article = h('article', { class: `${detail ? 'card card-detail-card' : 'card'}${card.pinned ? ' pinned' : ''}`, test: 'card', dataset: { cardId: card.id }, 'aria-label': t('by', { nickname: author?.nickname ?? '' }) },
    h('header', { class: 'card-meta' },
      h('a', { class: 'author', href: href(`/users/${encodeURIComponent(author.id)}`) }, avatar(author), h('span', {}, author.nickname)),
      operatorBadge(author),
      card.pinned ? h('span', { class: 'badge pinned', test: 'pinned' }, t('pinned')) : null,
      h('time', { datetime: card.createdAt, title: new Date(card.createdAt).toLocaleString() }, relativeTime(card.createdAt, language())),
      card.expiresAt ? h('span', { class: 'badge' }, t('story')) : null,
      card.distanceMeters != null ? h('span', { class: 'badge' }, t('distance', { distance: distanceText(card.distanceMeters) })) : null),
    card.parentDeleted ? h('p', { class: 'muted' }, t('deleted')) : null,
    content,
    poll,
    card.tags?.length ? h('ul', { class: 'tags' }, card.tags.map((tag) =>
      h('li', {}, h('a', { class: 'tag-chip', href: href(`/tags/${encodeURIComponent(tag)}`), 'aria-label': t('tagLink', { tag }) }, `#${tag}`)))) : null,
    h('footer', { class: 'card-actions' }, likes, commentsLink, answered,
      h('span', { class: 'muted view-count', test: 'view-count' }, t('views', { count: card.viewCount ?? 0 }))));
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
    if (change.commentedByMe !== undefined) {
      card.commentedByMe = change.commentedByMe;
      answered.hidden = !change.commentedByMe;
    }
    if (change.poll && poll) {
      card.poll = change.poll;
      poll.soomRender();
    }
  };
  return article;
}

/**
 * A list of cards from a `pager` (see api.js), loading the next page as the reader nears the
 * end. `test` is the list's data-test hook; `empty()` makes what an empty list says (`emptyState`).
 * Returns `{element, prepend(card), stop(), sync()}`.
 */
export function cardList(pager, { test = null, label = '', empty = () => emptyState(t('empty')) } = {}) {
  const list = h('ol', { class: 'card-list', test, 'aria-label': label || null });
  const status = h('div', { class: 'muted list-status', 'aria-live': 'polite' }, t('loading'));
  const showEmpty = () => status.replaceChildren(empty());
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
      if (pager.done && shown.size === 0) showEmpty();
      else status.textContent = '';
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
      if (shown.size > 0 && !list.querySelector('[data-test="card"]') && pager.done && !failed) showEmpty();
    },
  };
}
