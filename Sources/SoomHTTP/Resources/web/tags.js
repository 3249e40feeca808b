// Tags: the ranked top ten (`ranked-tags`), a search box with live suggestions, my favourite
// tags (`#/tags`); and one tag's screen with its cards and a favourite toggle (`#/tags/NAME`).

import { h, replace } from './dom.js';
import { api, query, pager } from './api.js';
import { strings } from './i18n.js';
import { errorBox, retryBox } from './errors.js';
import { cardList, emptyState, composeCard } from './card.js';
import { href, navigate } from './router.js';

const t = strings({
  ko: {
    title: '태그', search: '태그 검색', searchHint: '글자, 숫자, _ 로 된 태그 이름의 앞부분을 입력하세요. # 은 빼도 돼요.',
    searchButton: '보기', placeholder: '#하늘', suggestions: '추천 태그', noMatch: '“{q}”(으)로 시작하는 태그가 아직 없어요.',
    found: '태그 {count}개를 찾았어요.', invalid: '태그는 글자, 숫자, _ 만으로 1–15자예요.',
    ranked: '많이 쓰인 태그', rankedEmpty: '아직 쓰인 태그가 없어요. 카드에 #태그를 달면 같은 이야기를 찾는 사람들이 볼 수 있어요.', writeTagged: '태그 달아 카드 쓰기',
    favorites: '내 관심 태그', favoritesEmpty: '관심 태그가 없어요. 태그 화면에서 ☆ 를 누르면, 그 태그로 새 카드가 올라올 때 알려 드려요.',
    uses: '카드 {count}장', loading: '불러오는 중…', rank: '{rank}위',
    tagTitle: '#{name}', allTags: '모든 태그', favorite: '관심 태그', favoriteOn: '관심 태그예요. 누르면 빠져요.', favoriteOff: '관심 태그가 아니에요. 누르면 추가돼요.',
    added: '#{name}을(를) 관심 태그에 추가했어요. 이 태그로 새 카드가 올라오면 알려 드려요.', removed: '#{name}을(를) 관심 태그에서 뺐어요.',
    cards: '#{name} 카드', cardsEmpty: '아직 #{name} 태그가 달린 카드가 없어요. 이 태그로 첫 카드를 써 보세요.', writeThis: '#{name} 카드 쓰기',
  },
  en: {
    title: 'Tags', search: 'Search tags', searchHint: 'Type the start of a tag: letters, digits and _ only. The # is optional.',
    searchButton: 'Go', placeholder: '#sky', suggestions: 'Suggested tags', noMatch: 'No tag starts with “{q}” yet.',
    found: { one: '{count} tag found.', other: '{count} tags found.' }, invalid: 'A tag is 1–15 letters, digits or _.',
    ranked: 'Most used tags', rankedEmpty: 'No tags have been used yet. Add a #tag to a card so people looking for the same story find it.', writeTagged: 'Write a card with a tag',
    favorites: 'My favourite tags', favoritesEmpty: 'No favourite tags yet. Press ☆ on a tag’s screen and you will be told when a new card carries it.',
    uses: { one: '{count} card', other: '{count} cards' }, loading: 'Loading…', rank: 'No. {rank}',
    tagTitle: '#{name}', allTags: 'All tags', favorite: 'Favourite tag', favoriteOn: 'This is a favourite tag. Press to remove it.', favoriteOff: 'Not a favourite tag. Press to add it.',
    added: '#{name} is now a favourite: you will be told when a new card carries it.', removed: '#{name} is no longer a favourite.',
    cards: 'Cards tagged #{name}', cardsEmpty: 'No card carries #{name} yet. Write the first one.', writeThis: 'Write a #{name} card',
  },
});

// A valid tag, or the start of one: letters (with their combining marks), digits and `_`, 1–15.
const TAG = /^[\p{L}\p{Nd}_][\p{L}\p{M}\p{Nd}_]{0,14}$/u;

/** What the person typed, normalised like the server does (trimmed, NFC, one leading # removed). */
export function normaliseTag(text) {
  return String(text).trim().normalize('NFC').replace(/^#/, '');
}

export function isValidTag(text) {
  return TAG.test(text);
}

/** `/tags/NAME` for the API; the tags named exactly `ranked` and `search` need a leading `#`. */
function tagPath(name) {
  return '/tags/' + (name === 'ranked' || name === 'search' ? '%23' : '') + encodeURIComponent(name);
}

function tagHref(name) {
  return href('/tags/' + encodeURIComponent(name));
}

function loading() {
  return h('p', { class: 'muted', 'aria-live': 'polite' }, t('loading'));
}

/** `#/tags`: search, the top ten, my favourites. */
export function render(main) {
  let gone = false;
  let timer = null;
  let asked = 0;

  const input = h('input', {
    type: 'search', id: 'tags-search-input', test: 'tag-search', autocomplete: 'off', spellcheck: 'false',
    placeholder: t('placeholder'), 'aria-describedby': 'tags-search-hint tags-search-status', 'aria-controls': 'tags-suggestions',
  });
  const status = h('div', { id: 'tags-search-status', class: 'tags-search-status', 'aria-live': 'polite' });
  const suggestions = h('ul', { id: 'tags-suggestions', class: 'tags-suggestions', test: 'tag-suggestions', 'aria-label': t('suggestions') });
  const form = h('form', { class: 'stack tags-search', role: 'search', novalidate: true },
    h('div', { class: 'field' },
      h('label', { for: 'tags-search-input' }, t('search')),
      h('div', { class: 'row tags-search-row' }, input, h('button', { type: 'submit', class: 'primary' }, t('searchButton'))),
      h('p', { id: 'tags-search-hint', class: 'muted small' }, t('searchHint'))),
    status,
    suggestions);

  const clearSuggestions = () => {
    suggestions.replaceChildren();
    status.replaceChildren();
  };

  const lookUp = async (q) => {
    const ticket = ++asked;
    try {
      const found = await api('GET', '/tags/search' + query({ q, limit: 10 }));
      if (gone || ticket !== asked) return;
      suggestions.replaceChildren(...found.items.map((item) => h('li', {},
        h('a', { class: 'tag-chip tags-suggestion', href: tagHref(item.name) },
          `#${item.name}`, h('span', { class: 'tags-count' }, t('uses', { count: item.usageCount }))))));
      status.replaceChildren(h('p', { class: 'muted small' }, found.items.length ? t('found', { count: found.items.length }) : t('noMatch', { q })));
    } catch (error) {
      if (gone || ticket !== asked) return;
      suggestions.replaceChildren();
      status.replaceChildren(errorBox(error));
    }
  };

  const changed = () => {
    clearTimeout(timer);
    const q = normaliseTag(input.value);
    if (!isValidTag(q)) {
      asked++;
      clearSuggestions();
      if (q) status.replaceChildren(h('p', { class: 'muted small' }, t('invalid')));
      return;
    }
    timer = setTimeout(() => lookUp(q), 200);
  };
  input.addEventListener('input', (event) => {
    // A Hangul syllable still being composed is not a prefix yet: wait for it to settle.
    if (event.isComposing) return;
    changed();
  });
  input.addEventListener('compositionend', changed);
  // Arrow keys move between the input and the suggestions; Escape clears them.
  input.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowDown') {
      const first = suggestions.querySelector('a');
      if (first) {
        event.preventDefault();
        first.focus();
      }
    } else if (event.key === 'Escape') {
      clearSuggestions();
    }
  });
  suggestions.addEventListener('keydown', (event) => {
    if (!['ArrowDown', 'ArrowUp', 'Escape'].includes(event.key)) return;
    const links = [...suggestions.querySelectorAll('a')];
    const index = links.indexOf(document.activeElement);
    event.preventDefault();
    if (event.key === 'Escape') return input.focus();
    const next = event.key === 'ArrowDown' ? index + 1 : index - 1;
    if (next < 0) input.focus();
    else links[Math.min(next, links.length - 1)]?.focus();
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const q = normaliseTag(input.value);
    if (isValidTag(q)) navigate('/tags/' + encodeURIComponent(q));
    else status.replaceChildren(h('p', { class: 'error', role: 'alert', test: 'error' }, t('invalid')));
  });

  const ranked = h('div', {}, loading());
  const favorites = h('div', {}, loading());

  main.append(
    h('h1', {}, t('title')),
    form,
    h('section', { class: 'tags-section', 'aria-labelledby': 'tags-ranked-title' },
      h('h2', { id: 'tags-ranked-title' }, t('ranked')), ranked),
    h('section', { class: 'tags-section', 'aria-labelledby': 'tags-favorites-title' },
      h('h2', { id: 'tags-favorites-title' }, t('favorites')), favorites));

  const loadRanked = () => api('GET', '/tags/ranked').then((list) => {
    if (gone) return;
    if (!list.items.length) {
      const empty = emptyState(t('rankedEmpty'), { label: t('writeTagged'), run: () => composeCard() });
      empty.querySelector('p').dataset.test = 'ranked-tags-empty';
      return replace(ranked, empty);
    }
    replace(ranked, h('ol', { class: 'tags-ranked', test: 'ranked-tags' }, list.items.map((item, index) => h('li', {},
      h('a', { class: 'tags-ranked-link', href: tagHref(item.name), test: 'tag', dataset: { tag: item.name } },
        h('span', { class: 'tags-rank', 'aria-hidden': 'true' }, String(index + 1)),
        h('span', { class: 'visually-hidden' }, t('rank', { rank: index + 1 }) + ' '),
        h('span', { class: 'tags-name' }, `#${item.name}`),
        h('span', { class: 'tags-count muted' }, t('uses', { count: item.usageCount })))))));
  }).catch((error) => {
    if (!gone) replace(ranked, retryBox(error, loadRanked));
  });
  loadRanked();

  const loadFavorites = () => api('GET', '/me/favorite-tags').then((list) => {
    if (gone) return;
    if (!list.items.length) return replace(favorites, emptyState(t('favoritesEmpty')));
    replace(favorites, h('ul', { class: 'tags-favorites', test: 'favorite-tags' }, list.items.map((item) => h('li', {},
      h('a', { class: 'tag-chip', href: tagHref(item.name), dataset: { tag: item.name } },
        `#${item.name}`, h('span', { class: 'tags-count' }, t('uses', { count: item.usageCount })))))));
  }).catch((error) => {
    if (!gone) replace(favorites, retryBox(error, loadFavorites));
  });
  loadFavorites();

  return () => {
    gone = true;
    clearTimeout(timer);
  };
}

/** `#/tags/:name`: the tag, its favourite toggle and its cards. */
export function renderTag(main, params) {
  const name = normaliseTag(params.name ?? '');
  let gone = false;
  const title = h('h1', { class: 'tags-title', test: 'tag-name' }, t('tagTitle', { name }));
  const count = h('p', { class: 'muted tags-usage', test: 'tag-usage' }, t('loading'));
  const star = h('span', { 'aria-hidden': 'true', class: 'tags-star' }, '☆');
  const favorite = h('button', { type: 'button', class: 'tags-favorite', test: 'favorite', 'aria-pressed': 'false', hidden: true },
    star, h('span', {}, t('favorite')));
  const favoriteNote = h('p', { class: 'visually-hidden', id: 'tags-favorite-note' });
  favorite.setAttribute('aria-describedby', 'tags-favorite-note');
  const message = h('div', { class: 'tags-message', 'aria-live': 'polite' });
  const header = h('header', { class: 'stack tags-header' },
    h('a', { href: href('/tags'), class: 'tags-back' }, `← ${t('allTags')}`),
    title,
    h('div', { class: 'row' }, count, favorite),
    favoriteNote,
    message);
  if (!isValidTag(name)) {
    // Not a tag at all (a hand-typed address): say so rather than asking the server.
    main.append(header);
    favorite.remove();
    count.remove();
    message.replaceChildren(h('p', { class: 'error', role: 'alert', test: 'error' }, t('invalid')));
    return null;
  }
  const list = cardList(pager('/tags/' + encodeURIComponent(name) + '/cards'), {
    test: 'tag-feed', label: t('cards', { name }),
    empty: () => emptyState(t('cardsEmpty', { name }), { label: t('writeThis', { name }), run: () => composeCard([name]) }),
  });
  main.append(header, list.element);

  let shownName = name;
  const showFavorite = (on) => {
    favorite.setAttribute('aria-pressed', String(on));
    star.textContent = on ? '★' : '☆';
    favoriteNote.textContent = on ? t('favoriteOn') : t('favoriteOff');
  };

  const loadTag = () => api('GET', tagPath(name)).then((tag) => {
    if (gone) return;
    message.replaceChildren();
    shownName = tag.name;
    title.textContent = t('tagTitle', { name: tag.name });
    count.textContent = t('uses', { count: tag.usageCount });
    showFavorite(tag.isFavorite);
    favorite.hidden = false;
  }).catch((error) => {
    if (gone) return;
    count.textContent = '';
    // Not a valid tag name: there are no cards to list either, and asking again cannot help.
    if (error.status === 422 || error.status === 400) {
      message.replaceChildren(errorBox(error));
      list.stop();
      list.element.remove();
    } else {
      message.replaceChildren(retryBox(error, loadTag));
    }
  });
  loadTag();

  let busy = false;
  favorite.addEventListener('click', async () => {
    if (busy) return;
    busy = true;
    favorite.setAttribute('aria-busy', 'true');
    const wanted = favorite.getAttribute('aria-pressed') !== 'true';
    message.replaceChildren();
    try {
      const result = await api(wanted ? 'PUT' : 'DELETE', tagPath(name) + '/favorite');
      if (gone) return;
      showFavorite(result.favorite);
      message.replaceChildren(h('p', { class: 'muted small' }, t(result.favorite ? 'added' : 'removed', { name: shownName })));
    } catch (error) {
      // `422 favorite_limit` and every other refusal, in words.
      if (!gone) message.replaceChildren(errorBox(error));
    } finally {
      busy = false;
      favorite.removeAttribute('aria-busy');
    }
  });

  return () => {
    gone = true;
    list.stop();
  };
}
