// Someone's profile (`#/users/ID`): picture, nickname, bio, counts, "follows you"; follow and
// block; their cards (`user-cards`), followers (`followers`) and following (`following`) as tabs.

import { h, replace, onReachEnd } from './dom.js';
import { api, pager } from './api.js';
import { strings } from './i18n.js';
import { errorBox, retryBox } from './errors.js';
import { cardList, avatar, emptyState, operatorBadge } from './card.js';
import { href, navigate } from './router.js';

const t = strings({
  ko: {
    title: '프로필', loading: '불러오는 중…', followsYou: '나를 팔로우해요', visits: '방문 {total} · 오늘 {today}',
    follow: '팔로우', unfollow: '팔로우 취소', block: '차단', unblock: '차단 풀기',
    confirmBlock: '{nickname}님을 차단할까요? 서로의 카드와 알림이 더는 보이지 않고, 서로의 팔로우도 끊어져요.',
    blockedNote: '내가 차단한 사람이에요. 이 사람의 카드와 알림이 보이지 않아요.',
    followedNow: '{nickname}님을 팔로우해요. 팔로잉 피드에 카드가 보여요.', unfollowedNow: '{nickname}님 팔로우를 취소했어요.',
    blockedNow: '{nickname}님을 차단했어요.', unblockedNow: '{nickname}님 차단을 풀었어요.',
    notFound: '이 사람을 찾을 수 없어요. 탈퇴했거나 볼 수 없는 계정이에요.', home: '홈으로',
    sections: '{nickname}님의 카드와 사람들', cards: '카드', followers: '팔로워', following: '팔로잉',
    cardsOf: '{nickname}님의 카드', followersOf: '{nickname}님의 팔로워', followingOf: '{nickname}님이 팔로우하는 사람',
    noCards: '{nickname}님은 아직 카드를 쓰지 않았어요. 팔로우해 두면 첫 카드가 팔로잉 피드에 보여요.',
    noFollowers: '{nickname}님을 팔로우하는 사람이 아직 없어요. 첫 팔로워가 되어 보세요.', noFollowing: '{nickname}님은 아직 아무도 팔로우하지 않아요.',
    bioEmpty: '소개가 없어요.', open: '{nickname}님의 프로필',
  },
  en: {
    title: 'Profile', loading: 'Loading…', followsYou: 'Follows you', visits: '{total} visits · {today} today',
    follow: 'Follow', unfollow: 'Unfollow', block: 'Block', unblock: 'Unblock',
    confirmBlock: 'Block {nickname}? You will no longer see each other’s cards or notifications, and follows both ways end.',
    blockedNote: 'You blocked this person: their cards and notifications are hidden from you.',
    followedNow: 'You follow {nickname}: their cards show in your Following feed.', unfollowedNow: 'You no longer follow {nickname}.',
    blockedNow: 'You blocked {nickname}.', unblockedNow: 'You unblocked {nickname}.',
    notFound: 'This person cannot be found: the account was withdrawn or you cannot see it.', home: 'Go home',
    sections: 'Cards and people of {nickname}', cards: 'Cards', followers: 'Followers', following: 'Following',
    cardsOf: 'Cards by {nickname}', followersOf: 'Followers of {nickname}', followingOf: 'People {nickname} follows',
    noCards: '{nickname} has not written a card yet. Follow them to see their first one in your Following feed.',
    noFollowers: 'Nobody follows {nickname} yet. You could be the first.', noFollowing: '{nickname} does not follow anyone yet.',
    bioEmpty: 'No bio.', open: 'Profile of {nickname}',
  },
});

function userPath(id) {
  return '/users/' + encodeURIComponent(id);
}

/** One person in a list of profiles, linking to their profile. */
function personItem(person) {
  return h('li', { class: 'profile-person', test: 'person', dataset: { userId: person.id } },
    h('a', { class: 'profile-person-link', href: href(person.isMe ? '/me' : userPath(person.id)), 'aria-label': t('open', { nickname: person.nickname }) },
      avatar(person),
      h('span', { class: 'profile-person-text' },
        h('span', { class: 'profile-person-name' }, person.nickname),
        person.bio ? h('span', { class: 'muted small profile-person-bio' }, person.bio) : null),
      person.isFollowedBy ? h('span', { class: 'badge' }, t('followsYou')) : null));
}

/**
 * A paged list of `Profile`s (followers, following), loading on as the reader nears its end.
 * Returns `{element, stop}`.
 */
export function peopleList(source, { test = null, label = '', empty = () => null } = {}) {
  const list = h('ul', { class: 'profile-people', test, 'aria-label': label || null });
  const status = h('div', { class: 'muted list-status', 'aria-live': 'polite' }, t('loading'));
  const sentinel = h('div', { class: 'sentinel', 'aria-hidden': 'true' });
  const shown = new Set();
  const load = async () => {
    try {
      const items = await source.next();
      for (const person of items) {
        if (shown.has(person.id)) continue;
        shown.add(person.id);
        list.append(personItem(person));
      }
      if (source.done && shown.size === 0) status.replaceChildren(empty() ?? '');
      else status.textContent = '';
      return !source.done;
    } catch (error) {
      // The same page again (the cursor did not move), then loading on as the reader scrolls.
      status.replaceChildren(retryBox(error, async () => {
        status.textContent = t('loading');
        stop();
        stop = onReachEnd(sentinel, load);
      }));
      return false;
    }
  };
  let stop = onReachEnd(sentinel, load);
  return { element: h('div', { class: 'profile-people-wrap' }, list, status, sentinel), stop: () => stop() };
}

/**
 * Lists as tabs (cards, followers, following): `entries` = `[{name, label, count, countTest,
 * make: () => ({element, stop})}]`; the first is shown first. Arrow keys, Home and End move
 * between tabs. Returns `{element, show(), setCount(name, value), current, stop()}`.
 */
export function listTabs(prefix, entries, label) {
  let current = entries[0].name;
  let list = null;
  const names = entries.map((entry) => entry.name);
  const counts = {};
  const buttons = {};
  for (const entry of entries) {
    counts[entry.name] = h('span', { class: 'profile-count', test: entry.countTest ?? null }, entry.count == null ? '' : String(entry.count));
    buttons[entry.name] = h('button', {
      type: 'button', role: 'tab', id: `${prefix}-tab-${entry.name}`, class: 'profile-tab', test: `tab-${entry.name}`,
      'aria-controls': `${prefix}-panel`, 'aria-selected': String(entry.name === current), tabindex: entry.name === current ? '0' : '-1',
      onclick: () => select(entry.name),
    }, h('span', { class: 'profile-tab-label' }, entry.label), ' ', counts[entry.name]);
  }
  const tablist = h('div', { class: 'profile-tabs', role: 'tablist', 'aria-label': label }, names.map((name) => buttons[name]));
  const panel = h('div', { id: `${prefix}-panel`, class: 'profile-panel', role: 'tabpanel', 'aria-labelledby': `${prefix}-tab-${current}` });

  tablist.addEventListener('keydown', (event) => {
    const index = names.indexOf(current);
    const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: names.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const name = names[(next + names.length) % names.length];
    select(name);
    buttons[name].focus();
  });

  function show() {
    list?.stop();
    list = entries.find((entry) => entry.name === current).make();
    panel.setAttribute('aria-labelledby', `${prefix}-tab-${current}`);
    replace(panel, list.element);
  }

  function select(name) {
    if (!names.includes(name)) return;
    current = name;
    for (const other of names) {
      buttons[other].setAttribute('aria-selected', String(other === name));
      buttons[other].setAttribute('tabindex', other === name ? '0' : '-1');
    }
    show();
  }

  show();
  return {
    element: h('section', { class: 'profile-sections', 'aria-label': label }, tablist, panel),
    show,
    setCount(name, value) {
      counts[name].textContent = String(value);
    },
    get current() {
      return current;
    },
    stop() {
      list?.stop();
    },
  };
}

export function render(main, params) {
  const id = params.id;
  let gone = false;
  let profile = null;
  let tabs = null;

  const title = h('h1', { class: 'profile-name', test: 'profile-nickname' }, t('title'));
  const picture = h('div', { class: 'profile-picture' });
  // The operator account's badge (`isOperator`), beside the name.
  const operator = h('span', { class: 'profile-operator' });
  const followsYou = h('span', { class: 'badge profile-follows-you', test: 'follows-you', hidden: true }, t('followsYou'));
  const bio = h('p', { class: 'profile-bio', test: 'profile-bio' });
  const blockedNote = h('p', { class: 'profile-blocked muted', test: 'blocked-note', hidden: true }, t('blockedNote'));
  const visits = h('p', { class: 'muted profile-visits', test: 'profile-visits' });
  const followButton = h('button', { type: 'button', class: 'primary', test: 'follow' }, t('follow'));
  const blockButton = h('button', { type: 'button', class: 'danger', test: 'block' }, t('block'));
  const actions = h('div', { class: 'row profile-actions', hidden: true }, followButton, blockButton);
  const message = h('div', { class: 'profile-message', 'aria-live': 'polite' });
  const status = h('div', { 'aria-live': 'polite' }, h('p', { class: 'muted' }, t('loading')));
  const header = h('header', { class: 'profile-header', test: 'profile' },
    title,
    picture,
    h('div', { class: 'profile-about' }, operator, followsYou, bio, visits, blockedNote));
  const lists = h('div', {});

  function makeTabs(next) {
    const nickname = next.nickname;
    return listTabs('profile', [
      { name: 'cards', label: t('cards'), count: next.cardCount, countTest: 'card-count',
        make: () => cardList(pager(userPath(id) + '/cards'), { test: 'user-cards', label: t('cardsOf', { nickname }), empty: () => emptyState(t('noCards', { nickname })) }) },
      { name: 'followers', label: t('followers'), count: next.followerCount, countTest: 'follower-count',
        make: () => peopleList(pager(userPath(id) + '/followers'), { test: 'followers', label: t('followersOf', { nickname }), empty: () => emptyState(t('noFollowers', { nickname })) }) },
      { name: 'following', label: t('following'), count: next.followingCount, countTest: 'following-count',
        make: () => peopleList(pager(userPath(id) + '/following'), { test: 'following', label: t('followingOf', { nickname }), empty: () => emptyState(t('noFollowing', { nickname })) }) },
    ], t('sections', { nickname }));
  }

  function show(next) {
    profile = next;
    title.textContent = next.nickname;
    replace(operator, operatorBadge(next));
    const image = avatar(next);
    image.classList.add('profile-avatar');
    replace(picture, image);
    followsYou.hidden = !next.isFollowedBy;
    bio.textContent = next.bio || t('bioEmpty');
    bio.classList.toggle('muted', !next.bio);
    blockedNote.hidden = !next.isBlocked;
    visits.textContent = t('visits', { total: next.visitCount ?? 0, today: next.visitsToday ?? 0 });
    followButton.textContent = t(next.isFollowing ? 'unfollow' : 'follow');
    followButton.className = next.isFollowing ? 'ghost' : 'primary';
    followButton.dataset.following = String(next.isFollowing);
    blockButton.textContent = t(next.isBlocked ? 'unblock' : 'block');
    blockButton.dataset.blocked = String(next.isBlocked);
    actions.hidden = false;
    if (tabs) {
      tabs.setCount('cards', next.cardCount);
      tabs.setCount('followers', next.followerCount);
      tabs.setCount('following', next.followingCount);
    }
  }

  /** Loads the profile (again after a block change: the counts and follows changed too). */
  async function load() {
    try {
      const next = await api('GET', userPath(id));
      if (gone) return;
      if (next.isMe) {
        navigate('/me');
        return;
      }
      status.replaceChildren();
      show(next);
      if (tabs) {
        tabs.show();
      } else {
        tabs = makeTabs(next);
        replace(lists, tabs.element);
      }
    } catch (error) {
      if (gone) return;
      if (error.status === 404) {
        title.textContent = t('title');
        actions.hidden = true;
        tabs?.stop();
        tabs = null;
        lists.replaceChildren();
        status.replaceChildren(h('div', { class: 'stack profile-not-found', test: 'not-found' },
          h('p', { class: 'error', role: 'alert', test: 'error' }, t('notFound')),
          h('a', { href: href('/') }, t('home'))));
      } else {
        status.replaceChildren(retryBox(error, load));
      }
    }
  }

  let busy = false;
  followButton.addEventListener('click', async () => {
    if (busy || !profile) return;
    busy = true;
    followButton.setAttribute('aria-busy', 'true');
    message.replaceChildren();
    const wanted = !profile.isFollowing;
    try {
      const result = await api(wanted ? 'PUT' : 'DELETE', userPath(id) + '/follow');
      window.dispatchEvent(new Event('soom:feeds-stale')); // who I follow or block changes what the feeds hold
      if (gone) return;
      show({ ...profile, isFollowing: result.following, followerCount: result.followerCount });
      message.replaceChildren(h('p', { class: 'muted small' }, t(result.following ? 'followedNow' : 'unfollowedNow', { nickname: profile.nickname })));
      if (tabs?.current === 'followers') tabs.show();
    } catch (error) {
      // `403 blocked` (I blocked them) and every other refusal, in words.
      if (!gone) message.replaceChildren(errorBox(error));
    } finally {
      busy = false;
      followButton.removeAttribute('aria-busy');
    }
  });

  blockButton.addEventListener('click', async () => {
    if (busy || !profile) return;
    const wanted = !profile.isBlocked;
    if (wanted && !window.confirm(t('confirmBlock', { nickname: profile.nickname }))) return;
    busy = true;
    blockButton.setAttribute('aria-busy', 'true');
    message.replaceChildren();
    try {
      const result = await api(wanted ? 'PUT' : 'DELETE', userPath(id) + '/block');
      window.dispatchEvent(new Event('soom:feeds-stale')); // who I follow or block changes what the feeds hold
      if (gone) return;
      message.replaceChildren(h('p', { class: 'muted small' }, t(result.blocked ? 'blockedNow' : 'unblockedNow', { nickname: profile.nickname })));
      // Blocking ends follows both ways: read the profile and its counts again.
      await load();
    } catch (error) {
      if (!gone) message.replaceChildren(errorBox(error));
    } finally {
      busy = false;
      blockButton.removeAttribute('aria-busy');
    }
  });

  main.append(h('div', { class: 'stack profile' }, header, actions, message, status, lists));
  load();

  return () => {
    gone = true;
    tabs?.stop();
  };
}
