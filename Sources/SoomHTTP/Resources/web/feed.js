// The home screen: the latest feed (`data-test="feed"`), and the popular, following and nearby
// feeds as tabs. Nearby asks the browser for a position only when the person presses the button.

import { h } from './dom.js';
import { pager } from './api.js';
import { strings } from './i18n.js';
import { errorBox } from './errors.js';
import { cardList, emptyState, composeCard } from './card.js';
import { href } from './router.js';

const t = strings({
  ko: {
    title: '숨', latest: '최신', popular: '인기', following: '팔로잉', nearby: '주변', feeds: '피드',
    emptyLatest: '아직 아무도 카드를 쓰지 않았어요. 지금 마음을 첫 카드로 남겨 보세요.', writeFirst: '첫 카드 쓰기',
    emptyFollowing: '팔로우한 사람의 카드가 여기에 모여요. 카드의 닉네임을 눌러 그 사람을 팔로우하거나, 태그에서 마음에 드는 이야기를 찾아보세요.', findTags: '태그 둘러보기',
    emptyPopular: '최근 7일 동안 사람들이 공감하거나 댓글 카드를 단 카드가 여기에 보여요. 아직은 없어요.', seeLatest: '최신 카드 보기',
    emptyNearby: '{radius} km 안에 위치를 남긴 카드가 없어요. 반경을 넓혀 보거나, 위치를 남겨 카드를 써 보세요.', writeHere: '여기서 카드 쓰기',
    radius: '반경', useLocation: '내 위치로 주변 카드 보기',
    locationNote: '버튼을 누를 때만 위치를 한 번 읽고, 서버는 이 위치를 저장하지 않아요. 카드에는 약 1 km 범위만 남아서, 거리는 대략(올림해서) 보여요.',
    locating: '위치를 확인하는 중…',
  },
  en: {
    title: 'Soom', latest: 'Latest', popular: 'Popular', following: 'Following', nearby: 'Nearby', feeds: 'Feeds',
    emptyLatest: 'Nobody has written a card yet. Say what’s on your mind in the first one.', writeFirst: 'Write the first card',
    emptyFollowing: 'Cards by people you follow gather here. Tap a nickname on a card to follow that person, or find stories you like through tags.', findTags: 'Find tags',
    emptyPopular: 'Cards people liked or answered in the last 7 days show up here. There are none yet.', seeLatest: 'See the latest cards',
    emptyNearby: 'No cards with a location within {radius} km. Try a wider radius, or write one with your location.', writeHere: 'Write a card here',
    radius: 'Radius', useLocation: 'Show cards near me',
    locationNote: 'Your position is read once, only when you press the button, and the server does not store it. A card keeps only the area of about 1 km around where it was written, so distances are approximate (rounded up).',
    locating: 'Finding your position…',
  },
});

const TABS = ['latest', 'popular', 'following', 'nearby'];
const RADII = [1, 5, 10, 20, 50];

/**
 * The latest, popular and following feeds stay alive while signed in (their cards, their
 * cursors, their scroll position): going back from a card to a feed shows it as it was, and
 * nothing is fetched twice. Forgotten when what they hold changes (follow, block, profile
 * saved: `soom:feeds-stale`), on a language change and on signing out.
 */
const kept = new Map(); // tab → {list, scroll}
let shownTab = null;

function keptFeed(tab) {
  let view = kept.get(tab);
  if (!view) {
    const paths = { latest: '/feeds/latest', popular: '/feeds/popular', following: '/feeds/following' };
    const list = cardList(pager(paths[tab]), {
      test: tab === 'latest' ? 'feed' : `feed-${tab}`, label: t(tab),
      empty: {
        latest: () => emptyState(t('emptyLatest'), { label: t('writeFirst'), run: () => composeCard() }),
        popular: () => emptyState(t('emptyPopular'), { label: t('seeLatest'), href: href('/') }),
        following: () => emptyState(t('emptyFollowing'), { label: t('findTags'), href: href('/tags') }),
      }[tab],
    });
    view = { list, scroll: 0 };
    kept.set(tab, view);
  }
  return view;
}

/** Drops the kept feeds (the one on screen stays until the screen changes). */
export function forget() {
  for (const [tab, view] of kept) {
    if (tab !== shownTab) view.list.stop();
  }
  kept.clear();
}

window.addEventListener('soom:feeds-stale', forget);

/** Puts a card just posted at the top of the latest feed, shown from its top. */
export function showNewCard(card) {
  const view = keptFeed('latest');
  view.list.prepend(card);
  view.scroll = 0;
  if (shownTab === 'latest') window.scrollTo(0, 0);
}

export function render(main, params) {
  const tab = TABS.includes(params.tab) ? params.tab : 'latest';
  const nav = h('nav', { class: 'tabs', test: 'feed-tabs', 'aria-label': t('feeds') },
    TABS.map((name) => h('a', { href: href(name === 'latest' ? '/' : `/feed/${name}`), class: 'tab', 'aria-current': name === tab ? 'page' : null }, t(name))));
  main.append(h('h1', { class: 'visually-hidden' }, t(tab)), nav);
  if (tab === 'nearby') return nearby(main);
  const view = keptFeed(tab);
  shownTab = tab;
  main.append(view.list.element);
  view.list.sync();
  if (view.scroll) window.scrollTo(0, view.scroll);
  return () => {
    shownTab = null;
    // Still kept: remember where the reader was. Forgotten meanwhile: stop it for good.
    if (kept.get(tab) === view) view.scroll = window.scrollY;
    else view.list.stop();
  };
}

function nearby(main) {
  let radius = 5;
  let list = null;
  const output = h('div', {});
  const select = h('select', { id: 'nearby-radius' }, RADII.map((km) => h('option', { value: String(km), selected: km === radius }, `${km} km`)));
  const button = h('button', { type: 'button', class: 'primary' }, t('useLocation'));
  const show = (position) => {
    list?.stop();
    // Three decimals (about 100 m): more than the server uses (a cell of about 1 km, distances
    // rounded up), so no more is sent.
    const latitude = Math.round(position.coords.latitude * 1000) / 1000;
    const longitude = Math.round(position.coords.longitude * 1000) / 1000;
    const within = radius;
    list = cardList(pager('/feeds/nearby', { latitude, longitude, radiusKm: radius }), {
      test: 'feed-nearby', label: t('nearby'),
      empty: () => emptyState(t('emptyNearby', { radius: within }), { label: t('writeHere'), run: () => composeCard() }),
    });
    output.replaceChildren(list.element);
  };
  let position = null;
  button.addEventListener('click', () => {
    if (!navigator.geolocation) {
      output.replaceChildren(errorBox({ code: 'geolocation' }));
      return;
    }
    output.replaceChildren(h('p', { class: 'muted', 'aria-live': 'polite' }, t('locating')));
    navigator.geolocation.getCurrentPosition(
      (found) => {
        position = found;
        show(found);
      },
      () => output.replaceChildren(errorBox({ code: 'geolocation' })),
      { enableHighAccuracy: false, maximumAge: 600000, timeout: 15000 });
  });
  select.addEventListener('change', () => {
    radius = Number(select.value);
    if (position) show(position);
  });
  main.append(
    h('div', { class: 'stack nearby-controls' },
      h('p', { class: 'muted' }, t('locationNote')),
      h('div', { class: 'row' }, h('label', { for: 'nearby-radius' }, t('radius')), select, button)),
    output);
  return () => list?.stop();
}
