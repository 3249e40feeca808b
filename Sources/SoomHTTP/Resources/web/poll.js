// A card's poll: its options as buttons. A tap votes (or changes the vote); on a single-choice
// poll tapping one's own choice again withdraws it, on a multiple-choice poll each tap adds or
// removes that option. The counts show once one has voted, on one's own poll, and once it closed.

import { h, relativeTime } from './dom.js';
import { api } from './api.js';
import { strings, language } from './i18n.js';
import { showError } from './errors.js';

const t = strings({
  ko: {
    poll: '투표', single: '하나만 고를 수 있어요', multiple: '여러 개 고를 수 있어요', voters: '{count}명 참여', closed: '마감됨',
    closes: '{time} 마감', vote: '{option}에 투표', count: '{count}표 ({percent}%)',
  },
  en: {
    poll: 'Poll', single: 'Choose one', multiple: 'Choose any', voters: { one: '{count} voter', other: '{count} voters' }, closed: 'Closed',
    closes: 'Closes {time}', vote: 'Vote for {option}', count: { one: '{count} vote ({percent}%)', other: '{count} votes ({percent}%)' },
  },
});

/** The poll of `card` (`card.poll`, not null), kept in step with the card object; `onChange(poll)`
 * runs after the reader's ballot changed it. `data-test`: `poll`, `poll-option` (with
 * `data-index`, `aria-pressed` for the reader's choices), `poll-count`, `poll-voters`, `poll-closed`. */
export function pollElement(card, onChange = () => {}) {
  const element = h('section', { class: 'poll', test: 'poll', 'aria-label': t('poll') });
  let busy = false;

  const vote = async (index) => {
    if (busy) return;
    const poll = card.poll;
    const mine = new Set(poll.myVotes);
    if (poll.multiple) {
      if (mine.has(index)) mine.delete(index);
      else mine.add(index);
    } else if (mine.has(index)) {
      mine.clear();
    } else {
      mine.clear();
      mine.add(index);
    }
    busy = true;
    try {
      const path = `/cards/${encodeURIComponent(card.id)}/poll/vote`;
      const updated = mine.size
        ? await api('PUT', path, { body: { options: [...mine].sort((a, b) => a - b) } })
        : await api('DELETE', path);
      card.poll = updated;
      render();
      onChange(updated);
    } catch (error) {
      // A poll that closed meanwhile: show it closed.
      if (error.code === 'poll_closed') {
        card.poll = { ...card.poll, closed: true };
        render();
      }
      showError(error);
    } finally {
      busy = false;
    }
  };

  const render = () => {
    const poll = card.poll;
    const closed = poll.closed || (poll.closesAt && Date.parse(poll.closesAt) <= Date.now());
    const showCounts = closed || card.isMine || poll.myVotes.length > 0;
    const options = poll.options.map((option, index) => {
      const chosen = poll.myVotes.includes(index);
      const percent = poll.voterCount ? Math.round((option.voteCount / poll.voterCount) * 100) : 0;
      const button = h('button', {
        type: 'button', class: `poll-option${chosen ? ' chosen' : ''}`, test: 'poll-option', dataset: { index: String(index) },
        'aria-pressed': String(chosen), disabled: closed || card.isMine, 'aria-label': t('vote', { option: option.text }),
      },
      h('span', { class: 'poll-text' }, option.text),
      showCounts ? h('span', { class: 'poll-count', test: 'poll-count' }, t('count', { count: option.voteCount, percent })) : null);
      // The bar behind the option (styles.css); through the CSSOM, which the style policy allows.
      if (showCounts) button.style.setProperty('--share', `${percent}%`);
      return h('li', {}, button);
    });
    element.replaceChildren(
      h('p', { class: 'muted small' }, t(poll.multiple ? 'multiple' : 'single')),
      h('ol', { class: 'poll-options' }, options),
      h('p', { class: 'muted small poll-meta' },
        h('span', { test: 'poll-voters' }, t('voters', { count: poll.voterCount })),
        closed ? h('span', { class: 'badge', test: 'poll-closed' }, t('closed'))
          : poll.closesAt ? h('span', {}, t('closes', { time: relativeTime(poll.closesAt, language()) })) : null));
    for (const button of element.querySelectorAll('[data-test="poll-option"]')) {
      button.addEventListener('click', (event) => {
        event.stopPropagation();
        vote(Number(button.dataset.index));
      });
    }
  };
  render();
  element.soomRender = render;
  return element;
}
