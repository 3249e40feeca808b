// The composer: text (up to 500 characters) over a built-in background or one's own photo,
// a font, tags with live suggestions, story and location toggles (location off by default).

import { h, graphemes, showCount } from './dom.js';
import { api, query } from './api.js';
import { strings } from './i18n.js';
import { describe, errorBox, retryBox } from './errors.js';
import { FONTS, fitInk } from './card.js';
import { defaultBackgrounds } from './backgrounds.js';

const t = strings({
  ko: {
    title: '카드 쓰기', text: '내용', placeholder: '지금 마음을 적어 보세요', font: '글꼴', background: '배경', photo: '사진 올리기',
    uploading: '사진을 올리는 중…', photoNote: '사진의 위치·기기 정보(EXIF 등)는 서버가 저장하기 전에 지워요.',
    tags: '태그', tagsHint: '띄어쓰기나 쉼표로 구분 (최대 10개)', story: '스토리 (24시간 뒤 사라져요)',
    location: '위치 남기기 (정확한 위치는 남지 않고, 주변 피드에는 약 1 km 범위로만 보여요)', submit: '올리기', cancel: '취소', posting: '올리는 중…',
    fontdefault: '기본', fontserif: '명조', fonthandwriting: '손글씨', fontrounded: '둥근', count: '{count}/500',
    noSuggestions: '추천 태그를 불러오지 못했어요. 태그는 그대로 쓸 수 있어요.',
    suggestions: '추천 태그', empty: '내용을 입력해 주세요.', tooLong: '500자까지 쓸 수 있어요.', tooManyTags: '태그는 10개까지예요.',
    categorysky: '하늘', categorysea: '바다', categoryforest: '숲', categorypaper: '종이', categoryupload: '내 사진', preview: '미리보기',
    poll: '투표 붙이기', pollOption: '선택지 {number}', pollMultiple: '여러 개 고를 수 있게', pollCloses: '마감', pollNever: '마감 없음',
    poll1h: '1시간 뒤', poll1d: '하루 뒤', poll3d: '3일 뒤', poll7d: '7일 뒤', pollTooFew: '선택지를 두 개 이상 적어 주세요.',
    pollSame: '선택지가 서로 달라야 해요.', pollLong: '선택지는 30자까지예요.', pollStory: '스토리의 투표는 스토리와 함께 마감돼요.',
  },
  en: {
    title: 'New card', text: 'Text', placeholder: 'What’s on your mind?', font: 'Font', background: 'Background', photo: 'Upload a photo',
    uploading: 'Uploading…', photoNote: 'Location and device details (EXIF and the like) are removed before the server stores a photo.',
    tags: 'Tags', tagsHint: 'Separate with spaces or commas (at most 10)', story: 'Story (disappears after 24 hours)',
    location: 'Add my location (the exact spot is never kept: only the area of about 1 km around it, for the nearby feed)', submit: 'Post', cancel: 'Cancel', posting: 'Posting…',
    fontdefault: 'Default', fontserif: 'Serif', fonthandwriting: 'Handwriting', fontrounded: 'Rounded', count: '{count}/500',
    noSuggestions: 'Could not load tag suggestions. You can still type tags.',
    suggestions: 'Suggested tags', empty: 'Please write something.', tooLong: 'At most 500 characters.', tooManyTags: 'At most 10 tags.',
    categorysky: 'Sky', categorysea: 'Sea', categoryforest: 'Forest', categorypaper: 'Paper', categoryupload: 'My photos', preview: 'Preview',
    poll: 'Add a poll', pollOption: 'Option {number}', pollMultiple: 'Allow several choices', pollCloses: 'Closes', pollNever: 'Never',
    poll1h: 'In an hour', poll1d: 'In a day', poll3d: 'In 3 days', poll7d: 'In 7 days', pollTooFew: 'Write at least two options.',
    pollSame: 'Options must differ.', pollLong: 'Options have at most 30 characters.', pollStory: 'A story’s poll closes with the story.',
  },
});

/** Tags as typed: split on spaces and commas, `#` optional, duplicates (ignoring case) dropped. */
export function parseTags(text) {
  const seen = new Set();
  const tags = [];
  for (const raw of text.split(/[\s,，]+/)) {
    const tag = raw.replace(/^#+/, '').normalize('NFC');
    if (!tag || seen.has(tag.toLowerCase())) continue;
    seen.add(tag.toLowerCase());
    tags.push(tag);
  }
  return tags;
}

// When a poll closes, from now: the composer's choices (the server takes 5 minutes to 7 days).
const POLL_CLOSING = { never: null, '1h': 3600, '1d': 86400, '3d': 3 * 86400, '7d': 7 * 86400 - 60 };

/** The poll the composer's fields describe (`CardCreate.poll`), or an error message key. */
export function pollBody(texts, multiple, closing, from = Date.now()) {
  const options = texts.map((text) => text.trim()).filter((text) => text);
  if (options.length < 2) return { problem: 'pollTooFew' };
  if (new Set(options.map((text) => text.toLowerCase())).size !== options.length) return { problem: 'pollSame' };
  if (options.some((text) => graphemes(text) > 30)) return { problem: 'pollLong' };
  const poll = { options, multiple };
  const seconds = POLL_CLOSING[closing];
  if (seconds) poll.closesAt = new Date(from + seconds * 1000).toISOString();
  return { poll };
}

const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/webp'];
const PHOTO_MAX = 5 * 1024 * 1024;

function currentPosition() {
  return new Promise((resolve, reject) => {
    if (!navigator.geolocation) return reject(Object.assign(new Error(), { code: 'geolocation' }));
    navigator.geolocation.getCurrentPosition(resolve, () => reject(Object.assign(new Error(), { code: 'geolocation' })),
      { enableHighAccuracy: false, maximumAge: 600000, timeout: 15000 });
  });
}

/**
 * Opens the composer as a modal dialog. `onPosted(card)` runs after the card was created.
 * `parentId` makes it a comment card on that card; `tags` fills the tag field.
 */
export function openComposer({ onPosted, parentId = null, tags: givenTags = [] }) {
  // One key per card being written: a retry after a lost answer cannot post it twice.
  let idempotencyKey = crypto.randomUUID();
  // When the first try with this key was sent: a retry sends the same poll closing time, so the
  // server sees the same request again (a different body under one key would be refused).
  let firstTryAt = null;
  let background = null; // {default: name} or {imageId}
  const state = { font: 'default' };

  const text = h('textarea', { id: 'compose-text', test: 'compose-text', rows: '6', maxlength: '2000', required: true, placeholder: t('placeholder') });
  const counter = h('span', { class: 'muted counter', 'aria-live': 'polite' }, t('count', { count: 0 }));
  const previewImage = h('img', { class: 'card-background', alt: '' });
  const previewText = h('p', { class: 'card-text' });
  const preview = h('div', { class: 'card-content font-default compose-preview', 'aria-label': t('preview') }, previewImage, previewText);
  fitInk(preview, previewImage);
  const font = h('select', { id: 'compose-font' }, FONTS.map((name) => h('option', { value: name }, t(`font${name}`))));
  // Hidden behind its label, which shows the keyboard focus instead (styles.css `.file-input`).
  const photoInput = h('input', { type: 'file', id: 'compose-photo', accept: PHOTO_TYPES.join(','), class: 'visually-hidden file-input' });
  const photoStatus = h('p', { class: 'muted', 'aria-live': 'polite' });
  // A row per kind of picture (`background-group`, `data-category`): my uploads first, in a row
  // of their own beside the button that adds one, then the built-in ones by category.
  const group = (category, label, ...children) => h('div', {
    class: 'background-group', role: 'group', 'aria-label': label, test: 'background-group', dataset: { category },
  }, h('span', { class: 'category', 'aria-hidden': 'true' }, label), ...children);
  const uploads = group('upload', t('categoryupload'), photoInput, h('label', { for: 'compose-photo', class: 'button ghost upload-button' }, `+ ${t('photo')}`));
  const backgrounds = h('div', { class: 'background-picker', role: 'radiogroup', 'aria-label': t('background') }, uploads);
  const tags = h('input', {
    id: 'compose-tags', test: 'compose-tags', type: 'text', autocomplete: 'off', 'aria-describedby': 'compose-tags-hint',
    value: givenTags.length ? givenTags.map((tag) => `#${tag} `).join('') : null,
  });
  const suggestions = h('ul', { class: 'suggestions', 'aria-label': t('suggestions') });
  const story = h('input', { type: 'checkbox', id: 'compose-story' });
  const location = h('input', { type: 'checkbox', id: 'compose-location' });
  // A poll, top-level cards only: up to four options, whether several may be chosen, when it closes.
  const pollToggle = h('input', { type: 'checkbox', id: 'compose-poll', test: 'compose-poll' });
  const pollOptions = [1, 2, 3, 4].map((number) => h('input', {
    type: 'text', id: `compose-poll-${number}`, test: 'compose-poll-option', maxlength: '60', 'aria-label': t('pollOption', { number }),
    placeholder: t('pollOption', { number }),
  }));
  const pollMultiple = h('input', { type: 'checkbox', id: 'compose-poll-multiple', test: 'compose-poll-multiple' });
  const pollClosing = h('select', { id: 'compose-poll-closes', test: 'compose-poll-closes' },
    Object.keys(POLL_CLOSING).map((key) => h('option', { value: key }, t(key === 'never' ? 'pollNever' : `poll${key}`))));
  const pollFields = h('fieldset', { class: 'field stack', hidden: true, test: 'compose-poll-fields' },
    h('legend', {}, t('poll')), ...pollOptions,
    h('div', { class: 'check' }, pollMultiple, h('label', { for: 'compose-poll-multiple' }, t('pollMultiple'))),
    h('div', { class: 'field' }, h('label', { for: 'compose-poll-closes' }, t('pollCloses')), pollClosing),
    h('p', { class: 'muted small' }, t('pollStory')));
  pollToggle.addEventListener('change', () => {
    pollFields.hidden = !pollToggle.checked;
    if (pollToggle.checked) pollOptions[0].focus();
  });
  const problem = h('div', { 'aria-live': 'assertive' });
  const submit = h('button', { type: 'submit', class: 'primary', test: 'compose-submit' }, t('submit'));
  const cancel = h('button', { type: 'button', class: 'ghost' }, t('cancel'));

  const form = h('form', { class: 'stack composer', method: 'dialog', novalidate: true },
    h('h2', {}, t('title')),
    preview,
    h('div', { class: 'field' }, h('label', { for: 'compose-text' }, t('text')), text, counter),
    h('div', { class: 'field' }, h('label', { for: 'compose-font' }, t('font')), font),
    h('fieldset', { class: 'field' }, h('legend', {}, t('background')), backgrounds, photoStatus, h('p', { class: 'muted small' }, t('photoNote'))),
    h('div', { class: 'field' }, h('label', { for: 'compose-tags' }, t('tags')), tags,
      h('p', { id: 'compose-tags-hint', class: 'muted small' }, t('tagsHint')), suggestions),
    h('div', { class: 'check' }, story, h('label', { for: 'compose-story' }, t('story'))),
    h('div', { class: 'check' }, location, h('label', { for: 'compose-location' }, t('location'))),
    parentId ? null : h('div', { class: 'check' }, pollToggle, h('label', { for: 'compose-poll' }, t('poll'))),
    parentId ? null : pollFields,
    problem,
    h('div', { class: 'row end' }, cancel, submit));
  const dialog = h('dialog', { class: 'sheet', 'aria-label': t('title') }, form);

  const choose = (choice, url, button) => {
    background = choice;
    previewImage.src = url;
    for (const other of backgrounds.querySelectorAll('[role=radio]')) other.setAttribute('aria-checked', String(other === button));
  };
  const loadDefaults = () => defaultBackgrounds().then((items) => {
    let row = null;
    for (const item of items) {
      if (item.category !== row?.dataset.category) {
        const name = t(`category${item.category}`) !== `category${item.category}` ? t(`category${item.category}`) : item.category;
        row = group(item.category, name);
        backgrounds.append(row);
      }
      const button = h('button', { type: 'button', role: 'radio', 'aria-checked': 'false', 'aria-label': item.name, class: 'swatch' },
        h('img', { src: item.url, alt: '' }));
      button.addEventListener('click', () => choose({ default: item.name }, item.url, button));
      row.append(button);
      if (!background) choose({ default: item.name }, item.url, button);
    }
  }).catch((error) => problem.replaceChildren(retryBox(error, async () => {
    problem.replaceChildren();
    await loadDefaults();
  })));
  loadDefaults();

  photoInput.addEventListener('change', async () => {
    const file = photoInput.files?.[0];
    photoInput.value = '';
    if (!file) return;
    // Checked here first: no 5 MiB upload only to hear it was too large or of the wrong type.
    if (!PHOTO_TYPES.includes(file.type)) return photoStatus.replaceChildren(errorBox({ code: 'unsupported_media_type' }));
    if (file.size > PHOTO_MAX) return photoStatus.replaceChildren(errorBox({ code: 'payload_too_large' }));
    photoStatus.textContent = t('uploading');
    try {
      const image = await api('POST', '/images', { body: file });
      const button = h('button', { type: 'button', role: 'radio', 'aria-checked': 'false', 'aria-label': t('categoryupload'), class: 'swatch' },
        h('img', { src: image.url, alt: '' }));
      button.addEventListener('click', () => choose({ imageId: image.id }, image.url, button));
      uploads.append(button);
      choose({ imageId: image.id }, image.url, button);
      photoStatus.textContent = '';
    } catch (error) {
      photoStatus.replaceChildren(errorBox(error));
    }
  });

  text.addEventListener('input', () => {
    showCount(counter, text, 500, (count) => t('count', { count }));
    previewText.textContent = text.value;
  });
  font.addEventListener('change', () => {
    state.font = font.value;
    preview.className = `card-content font-${font.value} compose-preview`;
  });

  let searchTimer = null;
  tags.addEventListener('input', () => {
    clearTimeout(searchTimer);
    const last = tags.value.split(/[\s,，]+/).pop().replace(/^#+/, '');
    if (!/^[\p{L}\p{N}_]{1,15}$/u.test(last)) {
      suggestions.replaceChildren();
      return;
    }
    searchTimer = setTimeout(async () => {
      try {
        const found = await api('GET', '/tags/search' + query({ q: last, limit: 5 }), { auth: false });
        suggestions.replaceChildren(...found.items.map((item) => h('li', {},
          h('button', { type: 'button', class: 'tag-chip', onclick: () => {
            const parts = tags.value.split(/([\s,，]+)/);
            parts[parts.length - 1] = item.name;
            tags.value = parts.join('') + ' ';
            suggestions.replaceChildren();
            tags.focus();
          } }, `#${item.name} · ${item.usageCount}`))));
      } catch {
        // Suggestions are a convenience: a failed lookup says so quietly, typing still works.
        suggestions.replaceChildren(h('li', { class: 'muted small', role: 'status' }, t('noSuggestions')));
      }
    }, 200);
  });

  cancel.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => dialog.remove());
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    problem.replaceChildren();
    const content = text.value;
    const tagList = parseTags(tags.value);
    if (!content.trim()) return problem.replaceChildren(h('p', { class: 'error', role: 'alert', test: 'error' }, t('empty')));
    if (graphemes(content) > 500) return problem.replaceChildren(h('p', { class: 'error', role: 'alert', test: 'error' }, t('tooLong')));
    if (tagList.length > 10) return problem.replaceChildren(h('p', { class: 'error', role: 'alert', test: 'error' }, t('tooManyTags')));
    const poll = !parentId && pollToggle.checked ? pollBody(pollOptions.map((input) => input.value), pollMultiple.checked, pollClosing.value, firstTryAt ??= Date.now()) : null;
    if (poll?.problem) return problem.replaceChildren(h('p', { class: 'error', role: 'alert', test: 'error' }, t(poll.problem)));
    submit.disabled = true;
    submit.textContent = t('posting');
    try {
      const body = { content, font: state.font, background: background ?? { default: 'paper-cream' }, tags: tagList, story: story.checked };
      if (poll) body.poll = poll.poll;
      if (location.checked) {
        const position = await currentPosition();
        // The server keeps only the centre of a geohash-6 cell (about 1 km × 0.6 km in Seoul, never
        // under 500 m): three decimals (about 100 m) are all it needs to find the cell.
        body.location = {
          latitude: Math.round(position.coords.latitude * 1000) / 1000,
          longitude: Math.round(position.coords.longitude * 1000) / 1000,
        };
      }
      const path = parentId ? `/cards/${encodeURIComponent(parentId)}/comments` : '/cards';
      const card = await api('POST', path, { body, headers: { 'Idempotency-Key': idempotencyKey } });
      dialog.close();
      onPosted(card);
    } catch (error) {
      // A definite refusal: the next try is a new request (it will differ), so it gets a new key.
      if (error.status >= 400 && error.status < 500) {
        idempotencyKey = crypto.randomUUID();
        firstTryAt = null;
      }
      problem.replaceChildren(h('p', { class: 'error', role: 'alert', test: 'error' }, describe(error)));
      submit.disabled = false;
      submit.textContent = t('submit');
    }
  });

  document.body.append(dialog);
  dialog.showModal();
  text.focus();
  return dialog;
}
