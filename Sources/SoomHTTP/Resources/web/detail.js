// An open card (`card-detail`) with its comment cards (`comments`, newest first), a quick
// comment form (`comment-text`, `comment-submit`), report, and delete for my own card.

import { h, add, graphemes, showCount } from './dom.js';
import { api, pager } from './api.js';
import { strings } from './i18n.js';
import { describe, errorBox, retryBox, showError } from './errors.js';
import { cardElement, cardList, noteCardChange, emptyState } from './card.js';
import { navigate, href } from './router.js';
import { openComposer } from './compose.js';

const t = strings({
  ko: {
    title: '카드', comments: '댓글 카드', write: '댓글 쓰기', placeholder: '따뜻한 댓글을 남겨 주세요', send: '댓글 달기', full: '배경·글꼴을 골라 댓글 카드 쓰기',
    empty: '아직 댓글 카드가 없어요. 이 카드에 처음으로 답해 보세요.', answer: '댓글 쓰기', report: '신고', reportTitle: '이 카드를 신고하는 이유', reported: '신고했어요. 이 카드는 이제 보이지 않아요.',
    reasonabuse: '욕설·괴롭힘', reasonprivacy: '개인정보 노출', reasonadvertising: '광고', reasonsexual: '음란물', reasonimpersonation: '사칭', reasonother: '기타',
    remove: '삭제', confirmRemove: '이 카드를 삭제할까요? 댓글 카드는 남아요.', removed: '카드를 삭제했어요.', parent: '원래 카드 보기', back: '뒤로',
    sendReport: '신고하기', cancel: '취소', count: '{count}/500', tooLong: '댓글은 500자까지 쓸 수 있어요.',
  },
  en: {
    title: 'Card', comments: 'Comment cards', write: 'Write a comment', placeholder: 'Leave a kind comment', send: 'Comment', full: 'Write a comment card with a background and font',
    empty: 'No comment cards yet. Be the first to answer this card.', answer: 'Write a comment', report: 'Report', reportTitle: 'Why are you reporting this card?', reported: 'Reported. You will not see this card again.',
    reasonabuse: 'Abuse or harassment', reasonprivacy: 'Private information', reasonadvertising: 'Advertising', reasonsexual: 'Sexual content', reasonimpersonation: 'Impersonation', reasonother: 'Other',
    remove: 'Delete', confirmRemove: 'Delete this card? Its comment cards stay.', removed: 'Card deleted.', parent: 'Open the original card', back: 'Back',
    sendReport: 'Report', cancel: 'Cancel', count: '{count}/500', tooLong: 'A comment can be at most 500 characters.',
  },
});

const MAX = 500;

const REASONS = ['abuse', 'privacy', 'advertising', 'sexual', 'impersonation', 'other'];

export function render(main, params) {
  const id = params.id;
  const section = h('section', { class: 'stack detail', test: 'card-detail', 'aria-busy': 'true' }, h('h1', { class: 'visually-hidden' }, t('title')));
  main.append(section);
  let comments = null;
  let gone = false;
  const load = () => api('GET', `/cards/${encodeURIComponent(id)}`).then((card) => {
    if (gone) return;
    section.setAttribute('aria-busy', 'false');
    // The card, and what is said about it: one column on a phone, side by side on a desktop.
    add(section, h('div', { class: 'stack detail-card' },
      card.parentId && !card.parentDeleted ? h('a', { href: href(`/cards/${encodeURIComponent(card.parentId)}`) }, `← ${t('parent')}`) : null,
      cardElement(card, { detail: true }),
      actions(card, section)));
    const text = h('textarea', { id: 'comment-text', test: 'comment-text', rows: '3', placeholder: t('placeholder'), 'aria-describedby': 'comment-count' });
    const counter = h('span', { id: 'comment-count', class: 'muted counter', 'aria-live': 'polite' }, t('count', { count: 0 }));
    text.addEventListener('input', () => showCount(counter, text, MAX, (count) => t('count', { count })));
    const problem = h('div', { 'aria-live': 'assertive' });
    const submit = h('button', { type: 'submit', class: 'primary', test: 'comment-submit' }, t('send'));
    // The quick form posts over the parent's built-in background (or plain paper under a photo).
    const background = card.background?.kind === 'default' ? { default: card.background.name } : { default: 'paper-cream' };
    let idempotencyKey = crypto.randomUUID();
    const form = h('form', { class: 'stack comment-form', novalidate: true },
      h('label', { for: 'comment-text' }, t('write')), text, counter, problem,
      h('div', { class: 'row end' },
        h('button', { type: 'button', class: 'ghost', onclick: () => openComposer({ parentId: card.id, onPosted: added }) }, t('full')),
        submit));
    // The open card's comment count (here and on every kept copy of it) follows.
    const added = (comment) => {
      comments.prepend(comment);
      card.commentCount = (card.commentCount ?? 0) + 1;
      card.commentedByMe = true;
      noteCardChange(card.id, { commentCount: card.commentCount, commentedByMe: true });
    };
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      problem.replaceChildren();
      if (!text.value.trim()) {
        problem.replaceChildren(errorBox({ code: 'validation_failed', message: '' }));
        return;
      }
      if (graphemes(text.value) > MAX) {
        problem.replaceChildren(h('p', { class: 'error', role: 'alert', test: 'error' }, t('tooLong')));
        return;
      }
      submit.disabled = true;
      try {
        const comment = await api('POST', `/cards/${encodeURIComponent(card.id)}/comments`,
          { body: { content: text.value, background }, headers: { 'Idempotency-Key': idempotencyKey } });
        idempotencyKey = crypto.randomUUID();
        text.value = '';
        counter.textContent = t('count', { count: 0 });
        counter.classList.remove('over');
        added(comment);
      } catch (error) {
        if (error.status >= 400 && error.status < 500) idempotencyKey = crypto.randomUUID();
        problem.replaceChildren(h('p', { class: 'error', role: 'alert', test: 'error' }, describe(error)));
      } finally {
        submit.disabled = false;
      }
    });
    comments = cardList(pager(`/cards/${encodeURIComponent(card.id)}/comments`), {
      test: 'comments', label: t('comments'), empty: () => emptyState(t('empty'), { label: t('answer'), run: () => text.focus() }),
    });
    section.append(h('div', { class: 'stack detail-talk' }, form, h('h2', {}, t('comments')), comments.element));
  }).catch((error) => {
    if (gone) return;
    section.setAttribute('aria-busy', 'false');
    // Gone or never visible: nothing to try again. Anything else may work the next time.
    const shown = error.status === 404 ? errorBox(error) : retryBox(error, async () => {
      shown.remove();
      section.setAttribute('aria-busy', 'true');
      await load();
    });
    section.append(shown);
  });
  load();
  return () => {
    gone = true;
    comments?.stop();
  };
}

function actions(card, section) {
  const row = h('div', { class: 'row detail-actions' });
  if (card.isMine) {
    row.append(h('button', { type: 'button', class: 'danger', onclick: async () => {
      if (!confirm(t('confirmRemove'))) return;
      try {
        await api('DELETE', `/cards/${encodeURIComponent(card.id)}`);
        noteCardChange(card.id, { gone: true });
        navigate('/');
      } catch (error) {
        showError(error);
      }
    } }, t('remove')));
  } else {
    row.append(h('button', { type: 'button', class: 'ghost', onclick: () => report(card, section) }, t('report')));
  }
  return row;
}

function report(card, section) {
  const choices = REASONS.map((reason, index) => h('div', { class: 'check' },
    h('input', { type: 'radio', name: 'report-reason', id: `reason-${reason}`, value: reason, checked: index === REASONS.length - 1 }),
    h('label', { for: `reason-${reason}` }, t(`reason${reason}`))));
  const problem = h('div', { 'aria-live': 'assertive' });
  const form = h('form', { method: 'dialog', class: 'stack' },
    h('fieldset', {}, h('legend', {}, t('reportTitle')), choices), problem,
    h('div', { class: 'row end' },
      h('button', { type: 'button', class: 'ghost', onclick: () => dialog.close() }, t('cancel')),
      h('button', { type: 'submit', class: 'danger' }, t('sendReport'))));
  const dialog = h('dialog', { class: 'sheet', 'aria-label': t('report') }, form);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const reason = form.querySelector('input[name=report-reason]:checked')?.value ?? 'other';
    try {
      await api('POST', `/cards/${encodeURIComponent(card.id)}/reports`, { body: { reason } });
      dialog.close();
      noteCardChange(card.id, { gone: true });
      section.replaceChildren(h('p', { class: 'muted', role: 'status' }, t('reported')));
    } catch (error) {
      problem.replaceChildren(errorBox(error));
    }
  });
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
}
