// Soom's service worker (served at /sw.js, scope /): shows a push as a system notification.
// Registered only after the person asked for notifications on this device (settings.js), never
// before. A push carries the contract's Notification JSON, encrypted for this browser; the text
// is made here, in the browser's language, and says no more than the list does (a like never
// names the liker). One system notification per notification: a message the server had to send
// again (`Topic`) carries the same id, and `tag` makes it replace the first.

const TEXT = {
  ko: {
    card_liked: '누군가 내 카드에 공감했어요.',
    card_commented: '{actor}님이 내 카드에 댓글 카드를 남겼어요.',
    followed: '{actor}님이 나를 팔로우하기 시작했어요.',
    favorite_tag_used: '관심 태그 #{tag}을(를) 단 새 카드가 올라왔어요.',
    following_posted: '팔로우하는 {actor}님이 새 카드를 올렸어요.',
    poll_closed: '참여한 투표가 끝났어요.',
    card_hidden: '신고가 쌓여 내 카드가 숨겨졌어요.',
    posting_restricted: '신고 누적으로 당분간 카드를 쓸 수 없어요.',
    someone: '누군가', other: '새 알림이 있어요.',
  },
  en: {
    card_liked: 'Someone liked your card.',
    card_commented: '{actor} answered your card with a comment card.',
    followed: '{actor} started following you.',
    favorite_tag_used: 'A new card carries #{tag}, one of your favourite tags.',
    following_posted: '{actor}, whom you follow, posted a new card.',
    poll_closed: 'A poll you took part in has closed.',
    card_hidden: 'Your card was hidden after several reports.',
    posting_restricted: 'Because of reports you cannot post for a while.',
    someone: 'Someone', other: 'You have a new notification.',
  },
};

function words() {
  const language = (self.navigator.language || 'ko').toLowerCase().startsWith('en') ? 'en' : 'ko';
  return TEXT[language];
}

/** The notification's sentence and where a tap leads. */
function describe(notification) {
  const text = words();
  const template = text[notification.type] ?? text.other;
  const body = template
    .replace('{actor}', notification.actor?.nickname ?? text.someone)
    .replace('{tag}', notification.tag ?? '');
  let path = '/notifications';
  if (notification.cardId) path = '/cards/' + encodeURIComponent(notification.cardId);
  else if (notification.actor) path = '/users/' + encodeURIComponent(notification.actor.id);
  return { body, url: '/#' + path };
}

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => {
  let notification = null;
  try {
    notification = event.data ? event.data.json() : null;
  } catch {
    notification = null;
  }
  if (!notification?.id) return;
  const { body, url } = describe(notification);
  event.waitUntil(
    self.registration.showNotification('숨', {
      body, tag: notification.id, data: { url, id: notification.id },
    }).then(() => self.clients.matchAll({ type: 'window' }))
      .then((windows) => windows.forEach((window) => window.postMessage({ type: 'soom:push', notification }))));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = event.notification.data?.url ?? '/';
  event.waitUntil(self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
    const open = windows.find((window) => new URL(window.url).origin === self.location.origin);
    if (open) return open.focus().then(() => open.navigate(url));
    return self.clients.openWindow(url);
  }));
});
