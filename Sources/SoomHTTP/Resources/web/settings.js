// Notification settings (`#/settings/notifications`): push to this device on or off (push.js),
// which kinds of notification are pushed to my devices and streamed to my open pages, and quiet
// hours during which nothing is pushed. Each
// change is saved at once (`PATCH /v1/me/notification-settings` with only what changed). The list
// of notifications keeps every one whatever is set here.

import { h } from './dom.js';
import { api } from './api.js';
import { strings } from './i18n.js';
import { errorBox, retryBox } from './errors.js';
import { href } from './router.js';
import { pushState, enablePush, disablePush } from './push.js';

const t = strings({
  ko: {
    title: '알림 설정', back: '알림으로', loading: '불러오는 중…',
    kinds: '받을 알림', kindsNote: '끈 알림도 알림 목록에는 그대로 남아요. 신고로 카드가 숨겨지거나 글쓰기가 제한될 때는 항상 알려 드려요.',
    cardLiked: '내 카드에 공감', cardCommented: '내 카드에 댓글 카드', followed: '새 팔로워', favoriteTagUsed: '관심 태그의 새 카드',
    followingPosted: '팔로우하는 사람의 새 카드', pollClosed: '참여한 투표의 마감',
    quiet: '방해 금지 시간', quietNote: '이 시간에는 푸시 알림을 보내지 않아요. 열어 둔 화면에는 그대로 보여요.',
    quietOn: '방해 금지 시간 쓰기', start: '시작', end: '끝', timeZone: '시간대',
    saving: '저장하는 중…', saved: '저장했어요.', sameTime: '시작과 끝은 달라야 해요.',
    device: '이 기기에서 받기', deviceNote: '화면을 닫아 두어도 이 브라우저에 알림을 보내요. 켜면 브라우저가 알림 권한을 물어봐요.',
    pushOn: '이 기기에 알림 보내는 중', pushOff: '이 기기에는 알림을 보내지 않아요.', turnOn: '알림 켜기', turnOff: '알림 끄기',
    pushDenied: '이 사이트의 알림이 브라우저에서 막혀 있어요. 브라우저 설정에서 허용한 뒤 다시 시도해 주세요.',
    pushUnsupported: '이 브라우저는 푸시 알림을 받을 수 없어요. 화면을 열어 두면 새 알림이 바로 보여요.', working: '바꾸는 중…',
  },
  en: {
    title: 'Notification settings', back: 'Back to notifications', loading: 'Loading…',
    kinds: 'What to send', kindsNote: 'Notifications switched off stay in your list. You are always told when a card of yours is hidden or your posting is restricted.',
    cardLiked: 'Likes on my cards', cardCommented: 'Comment cards on my cards', followed: 'New followers', favoriteTagUsed: 'New cards in my favourite tags',
    followingPosted: 'New cards by people I follow', pollClosed: 'Polls I took part in closing',
    quiet: 'Quiet hours', quietNote: 'No push notification is sent during these hours. An open page still shows them.',
    quietOn: 'Use quiet hours', start: 'Start', end: 'End', timeZone: 'Time zone',
    saving: 'Saving…', saved: 'Saved.', sameTime: 'Start and end must differ.',
    device: 'On this device', deviceNote: 'Sends notifications to this browser even when the page is closed. Turning it on makes the browser ask for permission.',
    pushOn: 'Notifications are sent to this device.', pushOff: 'No notifications are sent to this device.', turnOn: 'Turn on', turnOff: 'Turn off',
    pushDenied: 'Notifications from this site are blocked in the browser. Allow them in its settings, then try again.',
    pushUnsupported: 'This browser cannot receive push notifications. With the page open, new ones show at once.', working: 'Changing…',
  },
});

const SWITCHES = ['cardLiked', 'cardCommented', 'followed', 'favoriteTagUsed', 'followingPosted', 'pollClosed'];

/** This browser's time zone, or UTC. */
function localZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/** The zones to choose from: every one the browser knows, else just this one and UTC. */
function zones(current) {
  let all = [];
  try {
    all = Intl.supportedValuesOf('timeZone');
  } catch {
    all = [];
  }
  return [...new Set([current, localZone(), 'UTC', ...all])];
}

export function render(main) {
  let gone = false;
  const status = h('p', { class: 'muted small', 'aria-live': 'polite', test: 'settings-status' });
  const body = h('div', { class: 'stack' }, h('p', { class: 'muted' }, t('loading')));
  main.append(
    h('div', { class: 'row notif-head' }, h('h1', {}, t('title')), h('a', { href: href('/notifications'), class: 'ghost' }, t('back'))),
    body, status);

  // Saves one change; on failure shows why and puts the settings back as the server has them.
  const save = async (change, settings, redraw) => {
    status.replaceChildren(t('saving'));
    try {
      const saved = await api('PATCH', '/me/notification-settings', { body: change });
      if (gone) return;
      Object.assign(settings, saved);
      status.replaceChildren(t('saved'));
    } catch (error) {
      if (gone) return;
      status.replaceChildren(errorBox(error));
    }
    redraw();
  };

  const draw = (settings) => {
    const switches = SWITCHES.map((name) => {
      const box = h('input', { type: 'checkbox', id: `setting-${name}`, test: `setting-${name}`, checked: settings[name] });
      box.addEventListener('change', () => save({ [name]: box.checked }, settings, () => draw(settings)));
      return h('label', { class: 'check', for: `setting-${name}` }, box, t(name));
    });
    const quiet = settings.quietHours;
    const enabled = h('input', { type: 'checkbox', id: 'setting-quiet', test: 'setting-quiet', checked: Boolean(quiet) });
    const start = h('input', { type: 'time', id: 'quiet-start', test: 'quiet-start', value: quiet?.start ?? '23:00', required: true });
    const end = h('input', { type: 'time', id: 'quiet-end', test: 'quiet-end', value: quiet?.end ?? '07:00', required: true });
    const zone = h('select', { id: 'quiet-zone', test: 'quiet-zone' },
      zones(quiet?.timeZone ?? localZone()).map((name) => h('option', { value: name, selected: name === (quiet?.timeZone ?? localZone()) }, name)));
    const times = h('fieldset', { class: 'stack quiet-times', disabled: !quiet },
      h('div', { class: 'row' },
        h('div', { class: 'field' }, h('label', { for: 'quiet-start' }, t('start')), start),
        h('div', { class: 'field' }, h('label', { for: 'quiet-end' }, t('end')), end)),
      h('div', { class: 'field' }, h('label', { for: 'quiet-zone' }, t('timeZone')), zone));
    const sendQuiet = () => {
      if (!enabled.checked) return save({ quietHours: null }, settings, () => draw(settings));
      if (!start.value || !end.value) return;
      if (start.value === end.value) {
        status.replaceChildren(h('span', { class: 'error', role: 'alert' }, t('sameTime')));
        return;
      }
      save({ quietHours: { start: start.value.slice(0, 5), end: end.value.slice(0, 5), timeZone: zone.value } }, settings, () => draw(settings));
    };
    enabled.addEventListener('change', () => {
      times.disabled = !enabled.checked;
      sendQuiet();
    });
    for (const input of [start, end, zone]) input.addEventListener('change', sendQuiet);
    body.replaceChildren(
      device,
      h('section', { class: 'stack account-section', 'aria-labelledby': 'settings-kinds' },
        h('h2', { id: 'settings-kinds' }, t('kinds')), h('p', { class: 'muted small' }, t('kindsNote')),
        h('div', { class: 'stack', role: 'group', 'aria-labelledby': 'settings-kinds', test: 'notification-switches' }, switches)),
      h('section', { class: 'stack account-section', 'aria-labelledby': 'settings-quiet' },
        h('h2', { id: 'settings-quiet' }, t('quiet')), h('p', { class: 'muted small' }, t('quietNote')),
        h('label', { class: 'check', for: 'setting-quiet' }, enabled, t('quietOn')), times));
  };

  // This device: push on or off. The browser is asked for permission only when the person turns it on.
  const device = h('section', { class: 'stack account-section', 'aria-labelledby': 'settings-device', test: 'push-device' },
    h('h2', { id: 'settings-device' }, t('device')), h('p', { class: 'muted small' }, t('deviceNote')));
  const deviceState = h('p', { test: 'push-state', 'aria-live': 'polite' });
  const deviceButton = h('button', { type: 'button', class: 'primary', test: 'push-toggle' });
  const deviceProblem = h('div');
  device.append(deviceState, h('div', { class: 'row' }, deviceButton), deviceProblem);
  const showDevice = (state) => {
    device.dataset.state = state;
    deviceState.textContent = { on: t('pushOn'), off: t('pushOff'), denied: t('pushDenied'), unsupported: t('pushUnsupported') }[state];
    deviceButton.hidden = state === 'unsupported' || state === 'denied';
    deviceButton.textContent = state === 'on' ? t('turnOff') : t('turnOn');
  };
  deviceButton.addEventListener('click', async () => {
    const turningOn = device.dataset.state !== 'on';
    deviceButton.disabled = true;
    deviceState.textContent = t('working');
    deviceProblem.replaceChildren();
    try {
      showDevice(turningOn ? await enablePush() : await disablePush());
    } catch (error) {
      if (gone) return;
      deviceProblem.replaceChildren(errorBox(error));
      showDevice(await pushState().catch(() => 'off'));
    } finally {
      deviceButton.disabled = false;
    }
  });
  pushState().then((state) => !gone && showDevice(state)).catch(() => !gone && showDevice('unsupported'));

  const load = async () => {
    try {
      const settings = await api('GET', '/me/notification-settings');
      if (!gone) draw(settings);
    } catch (error) {
      if (!gone) body.replaceChildren(retryBox(error, load));
    }
  };
  load();
  return () => {
    gone = true;
  };
}
