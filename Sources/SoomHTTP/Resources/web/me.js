// My own profile (`#/me`): picture, nickname (`me-nickname`), bio; a form to change them
// (nickname checked as I type, bio up to 150 characters, a built-in picture, my own photo, or
// none); my cards (`my-cards`), followers and following; the people I blocked; settings.

import { h, replace, graphemes, showCount } from './dom.js';
import { api, pager } from './api.js';
import { strings, language } from './i18n.js';
import { errorBox, retryBox } from './errors.js';
import { cardList, avatar, emptyState, composeCard } from './card.js';
import { href } from './router.js';
import { updateAccount, checkNickname } from './session.js';
import { defaultBackgrounds } from './backgrounds.js';
import { listTabs, peopleList } from './profile.js';

const t = strings({
  ko: {
    title: '내 프로필', loading: '불러오는 중…', bioEmpty: '아직 소개가 없어요.', visits: '내 프로필 방문 {total} · 오늘 {today}',
    restricted: '신고가 쌓여 {until}까지 카드와 댓글을 쓸 수 없어요. 읽기는 그대로 돼요.',
    edit: '프로필 고치기', nickname: '닉네임', nicknameHint: '1–8자. 글자, 숫자, 공백, _ . - 를 쓸 수 있어요.',
    checking: '확인하는 중…', available: '쓸 수 있는 닉네임이에요.', same: '지금 닉네임이에요.',
    taken: '이미 쓰이는 닉네임이에요.', too_long: '8자까지 쓸 수 있어요.', empty: '닉네임을 입력해 주세요.', reserved: '쓸 수 없는 닉네임이에요.',
    invalid_characters: '글자, 숫자, 공백, _ . - 만 쓸 수 있어요.', unavailable: '쓸 수 없는 닉네임이에요.',
    bio: '소개', bioHint: '150자까지. 비워 둬도 돼요.', bioCount: '{count}/150', bioTooLong: '소개는 150자까지 쓸 수 있어요.',
    photo: '프로필 사진', preview: '프로필 사진 미리보기', defaults: '기본 그림', upload: '내 사진 올리기', remove: '사진 없애기',
    uploadHint: 'JPEG, PNG, WebP, 5 MiB까지. 위치·기기 정보(EXIF 등)는 서버가 저장하기 전에 지워요.',
    uploading: '사진을 올리는 중…', uploaded: '사진을 올렸어요. 저장을 누르면 프로필 사진이 돼요.',
    chosenDefault: '기본 그림을 골랐어요. 저장을 누르면 바뀌어요.', chosenNone: '사진을 없애기로 했어요. 저장을 누르면 바뀌어요.',
    save: '저장', saving: '저장하는 중…', saved: '저장했어요.', nothing: '바뀐 내용이 없어요.',
    settings: '설정 (언어, 기기 옮기기, 탈퇴, 로그아웃)', blocks: '차단한 사람', blocksEmpty: '차단한 사람이 없어요.',
    blocksHint: '차단을 풀면 서로의 카드와 알림이 다시 보여요. 끊어진 팔로우는 돌아오지 않아요.',
    unblock: '차단 풀기', unblockName: '{nickname}님 차단 풀기', unblocked: '{nickname}님 차단을 풀었어요.', more: '더 보기',
    lists: '내 카드와 사람들', cards: '내 카드', myComments: '내 댓글 카드', noComments: '아직 단 댓글 카드가 없어요.', followers: '팔로워', following: '팔로잉',
    noCards: '아직 쓴 카드가 없어요. 오늘 있었던 일이나 지금 마음을 첫 카드로 남겨 보세요.', writeFirst: '첫 카드 쓰기',
    noFollowers: '아직 나를 팔로우하는 사람이 없어요. 카드를 쓰면 그 카드를 본 사람이 나를 팔로우할 수 있어요.',
    noFollowing: '아직 팔로우하는 사람이 없어요. 마음에 드는 카드의 닉네임을 눌러 팔로우하면, 그 사람의 카드가 팔로잉 피드에 모여요.', findPeople: '카드 둘러보기',
    myFollowers: '나를 팔로우하는 사람', myFollowing: '내가 팔로우하는 사람',
    categorysky: '하늘', categorysea: '바다', categoryforest: '숲', categorypaper: '종이',
  },
  en: {
    title: 'My profile', loading: 'Loading…', bioEmpty: 'No bio yet.', visits: 'Profile visits: {total} · {today} today',
    restricted: 'Because of reports you cannot post cards or comments until {until}. Reading still works.',
    edit: 'Edit profile', nickname: 'Nickname', nicknameHint: '1–8 characters: letters, digits, spaces and _ . -',
    checking: 'Checking…', available: 'That nickname is available.', same: 'That is your nickname now.',
    taken: 'That nickname is taken.', too_long: 'At most 8 characters.', empty: 'Please enter a nickname.', reserved: 'That nickname is reserved.',
    invalid_characters: 'Letters, digits, spaces and _ . - only.', unavailable: 'That nickname cannot be used.',
    bio: 'Bio', bioHint: 'Up to 150 characters. It may stay empty.', bioCount: '{count}/150', bioTooLong: 'A bio can be at most 150 characters.',
    photo: 'Profile picture', preview: 'Profile picture preview', defaults: 'Built-in pictures', upload: 'Upload my photo', remove: 'Remove picture',
    uploadHint: 'JPEG, PNG or WebP, up to 5 MiB. Location and device details (EXIF and the like) are removed before the server stores it.',
    uploading: 'Uploading…', uploaded: 'Photo uploaded. Press Save to make it your picture.',
    chosenDefault: 'Built-in picture chosen. Press Save to use it.', chosenNone: 'Picture will be removed when you press Save.',
    save: 'Save', saving: 'Saving…', saved: 'Saved.', nothing: 'Nothing has changed.',
    settings: 'Settings (language, moving device, withdrawing, signing out)', blocks: 'People I blocked', blocksEmpty: 'You have not blocked anyone.',
    blocksHint: 'Unblocking shows each other’s cards and notifications again. Follows that ended do not come back.',
    unblock: 'Unblock', unblockName: 'Unblock {nickname}', unblocked: 'You unblocked {nickname}.', more: 'Load more',
    lists: 'My cards and people', cards: 'My cards', myComments: 'My comment cards', noComments: 'You have not answered a card yet.', followers: 'Followers', following: 'Following',
    noCards: 'You have not written a card yet. Share something from your day, or how you feel right now.', writeFirst: 'Write your first card',
    noFollowers: 'Nobody follows you yet. When people see your cards, they can follow you.',
    noFollowing: 'You do not follow anyone yet. Tap the nickname on a card you like to follow that person: their cards gather in your Following feed.', findPeople: 'Browse cards',
    myFollowers: 'People who follow me', myFollowing: 'People I follow',
    categorysky: 'Sky', categorysea: 'Sea', categoryforest: 'Forest', categorypaper: 'Paper',
  },
});

const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/webp'];
const PHOTO_MAX = 5 * 1024 * 1024;
const BIO_MAX = 150;

function say(element, text, className = 'muted small') {
  element.replaceChildren(text ? h('p', { class: className }, text) : '');
}

export function render(main) {
  let gone = false;
  let me = null;
  let tabs = null;
  let checkTimer = null;
  let checked = 0;
  // The picture to send: undefined = unchanged, null = none, {default} or {imageId}.
  let photoChoice;

  // My profile, as others see it.
  const picture = h('div', { class: 'me-picture' });
  const nicknameShown = h('p', { class: 'me-nickname', test: 'me-nickname' });
  const bioShown = h('p', { class: 'me-bio', test: 'me-bio' });
  const restricted = h('p', { class: 'me-restricted', role: 'status', hidden: true });
  // Visits are a profile's (`Profile.visitCount`), not `Me`'s: read from my profile as others see it.
  const visits = h('p', { class: 'muted', test: 'my-visits', hidden: true });
  const status = h('div', { 'aria-live': 'polite' }, h('p', { class: 'muted' }, t('loading')));

  // The edit form.
  const nickname = h('input', {
    type: 'text', id: 'me-nickname-input', test: 'nickname-input', maxlength: '40', autocomplete: 'off', spellcheck: 'false',
    'aria-describedby': 'me-nickname-hint me-nickname-check',
  });
  const nicknameCheck = h('div', { id: 'me-nickname-check', class: 'me-check', test: 'nickname-check', 'aria-live': 'polite' });
  const bio = h('textarea', { id: 'me-bio-input', test: 'bio-input', rows: '3', 'aria-describedby': 'me-bio-hint me-bio-count' });
  const bioCount = h('span', { id: 'me-bio-count', class: 'muted counter', 'aria-live': 'polite' }, t('bioCount', { count: 0 }));
  const preview = h('div', { class: 'me-photo-preview' });
  const defaults = h('div', { class: 'me-defaults', role: 'group', 'aria-label': t('defaults') }, h('p', { class: 'muted small' }, t('loading')));
  const fileInput = h('input', { type: 'file', id: 'me-photo-input', class: 'visually-hidden me-file', test: 'photo-input', accept: PHOTO_TYPES.join(','), 'aria-describedby': 'me-photo-hint' });
  const removePhoto = h('button', { type: 'button', class: 'ghost', test: 'photo-remove' }, t('remove'));
  const photoStatus = h('div', { class: 'me-photo-status', 'aria-live': 'polite' });
  const saveStatus = h('div', { class: 'me-save-status', 'aria-live': 'polite' });
  const save = h('button', { type: 'submit', class: 'primary', test: 'me-save' }, t('save'));
  const form = h('form', { class: 'stack me-form', test: 'me-edit', novalidate: true, 'aria-labelledby': 'me-edit-title' },
    h('h2', { id: 'me-edit-title' }, t('edit')),
    h('div', { class: 'field' },
      h('label', { for: 'me-nickname-input' }, t('nickname')), nickname,
      h('p', { id: 'me-nickname-hint', class: 'muted small' }, t('nicknameHint')), nicknameCheck),
    h('div', { class: 'field' },
      h('label', { for: 'me-bio-input' }, t('bio')), bio,
      h('div', { class: 'row me-bio-meta' }, h('p', { id: 'me-bio-hint', class: 'muted small' }, t('bioHint')), bioCount)),
    h('fieldset', { class: 'field me-photo' },
      h('legend', {}, t('photo')),
      h('div', { class: 'row' }, preview,
        h('div', { class: 'row me-photo-actions' }, fileInput, h('label', { for: 'me-photo-input', class: 'button ghost' }, t('upload')), removePhoto)),
      h('p', { id: 'me-photo-hint', class: 'muted small' }, t('uploadHint')),
      photoStatus,
      h('p', { class: 'me-defaults-title' }, t('defaults')),
      defaults),
    saveStatus,
    h('div', { class: 'row end' }, save));

  // People I blocked.
  const blocks = h('ul', { class: 'me-blocks', test: 'blocked-people', 'aria-labelledby': 'me-blocks-title' });
  const blocksStatus = h('div', { 'aria-live': 'polite' }, h('p', { class: 'muted' }, t('loading')));
  const blocksMore = h('button', { type: 'button', class: 'ghost me-blocks-more', hidden: true }, t('more'));
  const lists = h('div', {});

  main.append(
    h('h1', {}, t('title')),
    status,
    h('header', { class: 'me-header', test: 'me' }, picture, h('div', { class: 'me-about' }, nicknameShown, bioShown)),
    restricted,
    visits,
    h('p', {}, h('a', { href: href('/account'), class: 'me-settings', test: 'account-link' }, t('settings'))),
    form,
    h('section', { class: 'stack me-blocks-section', 'aria-labelledby': 'me-blocks-title' },
      h('h2', { id: 'me-blocks-title' }, t('blocks')),
      h('p', { class: 'muted small' }, t('blocksHint')),
      blocks, blocksStatus, blocksMore),
    lists);

  const setPreview = (image) => {
    const shown = image?.url
      ? h('img', { class: 'avatar', src: image.url, alt: t('preview') })
      : avatar({ nickname: nickname.value.trim() || me?.nickname, profileImage: null });
    shown.classList.add('me-photo-image');
    replace(preview, shown);
  };
  const markDefault = (button) => {
    for (const other of defaults.querySelectorAll('button')) other.setAttribute('aria-pressed', String(other === button));
  };

  function showMe(next) {
    me = next;
    const image = avatar(next);
    image.classList.add('me-avatar');
    replace(picture, image);
    nicknameShown.textContent = next.nickname;
    bioShown.textContent = next.bio || t('bioEmpty');
    bioShown.classList.toggle('muted', !next.bio);
    const until = next.restrictedUntil && Date.parse(next.restrictedUntil) > Date.now() ? next.restrictedUntil : null;
    restricted.hidden = !until;
    restricted.textContent = until ? t('restricted', { until: new Date(until).toLocaleString(language()) }) : '';
    nickname.value = next.nickname;
    bio.value = next.bio ?? '';
    countBio();
    nicknameCheck.replaceChildren();
    photoChoice = undefined;
    setPreview(next.profileImage);
    markDefault(next.profileImage?.kind === 'default'
      ? [...defaults.querySelectorAll('button')].find((button) => button.dataset.name === next.profileImage.name) ?? null
      : null);
    if (tabs) {
      tabs.setCount('cards', next.cardCount);
      tabs.setCount('followers', next.followerCount);
      tabs.setCount('following', next.followingCount);
    }
  }

  function countBio() {
    showCount(bioCount, bio, BIO_MAX, (count) => t('bioCount', { count }));
  }
  bio.addEventListener('input', countBio);

  // The nickname, checked as I type (300 ms after the last key).
  nickname.addEventListener('input', () => {
    clearTimeout(checkTimer);
    const ticket = ++checked;
    const wanted = nickname.value.trim();
    if (!me) return;
    if (wanted.toLowerCase() === me.nickname.toLowerCase()) {
      say(nicknameCheck, wanted === me.nickname ? t('same') : '');
      return;
    }
    if (!wanted) {
      say(nicknameCheck, t('empty'), 'error small');
      return;
    }
    say(nicknameCheck, t('checking'));
    checkTimer = setTimeout(async () => {
      try {
        const result = await checkNickname(wanted);
        if (gone || ticket !== checked) return;
        if (result.available) say(nicknameCheck, t('available'), 'me-ok small');
        else say(nicknameCheck, result.reason && t(result.reason) !== result.reason ? t(result.reason) : t('unavailable'), 'error small');
      } catch (error) {
        if (!gone && ticket === checked) nicknameCheck.replaceChildren(errorBox(error));
      }
    }, 300);
  });

  // Built-in pictures.
  // Fetched once per page load, shared with the composer.
  const loadDefaults = () => defaultBackgrounds().then((items) => {
    if (gone) return;
    defaults.replaceChildren();
    let category = null;
    let group = null;
    for (const item of items) {
      if (item.category !== category) {
        category = item.category;
        const name = t(`category${category}`) !== `category${category}` ? t(`category${category}`) : category;
        group = h('div', { class: 'me-defaults-group', role: 'group', 'aria-label': name });
        defaults.append(h('p', { class: 'muted small me-category' }, name), group);
      }
      const button = h('button', {
        type: 'button', class: 'me-swatch', 'aria-pressed': 'false', 'aria-label': item.name, dataset: { name: item.name }, test: 'default-picture',
      }, h('img', { src: item.url, alt: '', loading: 'lazy' }));
      button.addEventListener('click', () => {
        photoChoice = { default: item.name };
        markDefault(button);
        setPreview({ url: item.url });
        say(photoStatus, t('chosenDefault'));
      });
      group.append(button);
    }
    if (me?.profileImage?.kind === 'default') {
      markDefault([...defaults.querySelectorAll('button')].find((button) => button.dataset.name === me.profileImage.name) ?? null);
    }
  }).catch((error) => {
    if (!gone) defaults.replaceChildren(retryBox(error, loadDefaults));
  });
  loadDefaults();

  // My own photo: uploaded at once, used when I save.
  fileInput.addEventListener('change', async () => {
    const file = fileInput.files?.[0];
    fileInput.value = '';
    if (!file) return;
    if (!PHOTO_TYPES.includes(file.type)) return photoStatus.replaceChildren(errorBox({ code: 'unsupported_media_type' }));
    if (file.size > PHOTO_MAX) return photoStatus.replaceChildren(errorBox({ code: 'payload_too_large' }));
    say(photoStatus, t('uploading'));
    try {
      const image = await api('POST', '/images', { body: file });
      if (gone) return;
      photoChoice = { imageId: image.id };
      markDefault(null);
      setPreview(image);
      say(photoStatus, t('uploaded'));
    } catch (error) {
      if (!gone) photoStatus.replaceChildren(errorBox(error));
    }
  });

  removePhoto.addEventListener('click', () => {
    photoChoice = null;
    markDefault(null);
    setPreview(null);
    say(photoStatus, t('chosenNone'));
  });

  let saving = false;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (saving || !me) return;
    saveStatus.replaceChildren();
    const body = {};
    const wanted = nickname.value.trim();
    if (wanted !== me.nickname) {
      if (!wanted) return say(saveStatus, t('empty'), 'error');
      body.nickname = wanted;
    }
    if (bio.value !== (me.bio ?? '')) {
      if (graphemes(bio.value) > BIO_MAX) return say(saveStatus, t('bioTooLong'), 'error');
      body.bio = bio.value;
    }
    if (photoChoice !== undefined && !(photoChoice === null && !me.profileImage)) body.profileImage = photoChoice;
    if (!Object.keys(body).length) return say(saveStatus, t('nothing'));
    saving = true;
    save.setAttribute('aria-busy', 'true');
    save.textContent = t('saving');
    try {
      const result = await api('PATCH', '/me', { body });
      window.dispatchEvent(new Event('soom:feeds-stale')); // my cards show my new nickname and picture
      if (gone) return;
      updateAccount(result);
      showMe(result);
      say(photoStatus, '');
      say(saveStatus, t('saved'), 'me-ok');
    } catch (error) {
      // nickname_taken, validation_failed (with the field) and the rest, in words.
      if (!gone) saveStatus.replaceChildren(errorBox(error));
    } finally {
      saving = false;
      save.removeAttribute('aria-busy');
      save.textContent = t('save');
    }
  });

  // The people I blocked, a page at a time.
  const blocked = pager('/me/blocks');
  const loadBlocks = async () => {
    try {
      const items = await blocked.next();
      if (gone) return;
      for (const person of items) blocks.append(blockedItem(person));
      blocksStatus.replaceChildren(blocked.done && !blocks.children.length ? h('p', { class: 'muted' }, t('blocksEmpty')) : '');
      blocksMore.hidden = blocked.done;
    } catch (error) {
      if (!gone) blocksStatus.replaceChildren(retryBox(error, loadBlocks));
    }
  };
  blocksMore.addEventListener('click', loadBlocks);
  loadBlocks();

  function blockedItem(person) {
    const message = h('span', { class: 'me-block-message', 'aria-live': 'polite' });
    const button = h('button', { type: 'button', class: 'ghost', test: 'unblock', 'aria-label': t('unblockName', { nickname: person.nickname }) }, t('unblock'));
    const item = h('li', { class: 'me-block', test: 'blocked-person', dataset: { userId: person.id }, tabindex: '-1' },
      h('a', { class: 'me-block-link', href: href('/users/' + encodeURIComponent(person.id)) }, avatar(person), h('span', {}, person.nickname)),
      button, message);
    let busy = false;
    button.addEventListener('click', async () => {
      if (busy) return;
      busy = true;
      message.replaceChildren();
      try {
        await api('DELETE', '/users/' + encodeURIComponent(person.id) + '/block');
        window.dispatchEvent(new Event('soom:feeds-stale')); // who I follow or block changes what the feeds hold
        if (gone) return;
        button.remove();
        item.classList.add('me-block-done');
        message.textContent = t('unblocked', { nickname: person.nickname });
        item.focus();
      } catch (error) {
        if (!gone) message.replaceChildren(errorBox(error));
      } finally {
        busy = false;
      }
    });
    return item;
  }

  const load = () => api('GET', '/me').then((next) => {
    if (gone) return;
    updateAccount(next);
    status.replaceChildren();
    showMe(next);
    const id = encodeURIComponent(next.id);
    api('GET', '/users/' + id).then((profile) => {
      if (gone) return;
      visits.textContent = t('visits', { total: profile.visitCount, today: profile.visitsToday });
      visits.hidden = false;
    }).catch(() => {}); // The counts are extra: without them the screen is whole.
    tabs = listTabs('me', [
      { name: 'cards', label: t('cards'), count: next.cardCount, countTest: 'my-card-count',
        make: () => cardList(pager('/users/' + id + '/cards'), {
          test: 'my-cards', label: t('cards'), empty: () => emptyState(t('noCards'), { label: t('writeFirst'), run: () => composeCard() }),
        }) },
      { name: 'comments', label: t('myComments'),
        make: () => cardList(pager('/me/comments'), { test: 'my-comment-cards', label: t('myComments'), empty: () => emptyState(t('noComments')) }) },
      { name: 'followers', label: t('followers'), count: next.followerCount, countTest: 'my-follower-count',
        make: () => peopleList(pager('/users/' + id + '/followers'), { test: 'my-followers', label: t('myFollowers'), empty: () => emptyState(t('noFollowers')) }) },
      { name: 'following', label: t('following'), count: next.followingCount, countTest: 'my-following-count',
        make: () => peopleList(pager('/users/' + id + '/following'), {
          test: 'my-following', label: t('myFollowing'), empty: () => emptyState(t('noFollowing'), { label: t('findPeople'), href: href('/') }),
        }) },
    ], t('lists'));
    replace(lists, tabs.element);
  }).catch((error) => {
    if (!gone) status.replaceChildren(retryBox(error, load));
  });
  load();

  return () => {
    gone = true;
    clearTimeout(checkTimer);
    tabs?.stop();
  };
}
