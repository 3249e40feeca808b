// Small DOM helpers: every view builds its elements with `h`, never by parsing markup, so no
// text from the server can ever become markup.

/**
 * Makes an element. `props`: `class`, `test` (the data-test hook), `dataset`, `on<event>`
 * handlers, boolean attributes (true/false), properties the element has (`value`, `checked`),
 * and any other attribute as a string. Children: nodes, strings, numbers, arrays, or null.
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') element.className = value;
    else if (key === 'test') element.dataset.test = value;
    else if (key === 'dataset') Object.assign(element.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') element.addEventListener(key.slice(2).toLowerCase(), value);
    else if (value === true) element.setAttribute(key, '');
    else if ((key === 'value' || key === 'checked' || key === 'selected') && key in element) element[key] = value;
    else element.setAttribute(key, String(value));
  }
  append(element, children);
  return element;
}

/** Appends children as `h` does: null, undefined and false are skipped (the DOM's own
 * `append` would write them out as text), arrays are flattened, strings become text. */
export function add(element, ...children) {
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else if (child instanceof Node) element.append(child);
    else element.append(document.createTextNode(String(child)));
  }
}

/** How many characters `text` has as a person sees them (grapheme clusters: an emoji with its
 * modifiers is one), the way the server counts them against its length limits. */
export function graphemes(text) {
  return [...new Intl.Segmenter().segment(text)].length;
}

/** A length counter under a text field: `counter` reads `label(count)` for the graphemes in
 * `field`, and is marked `over` when there are more than `max`. */
export function showCount(counter, field, max, label) {
  const count = graphemes(field.value);
  counter.textContent = label(count);
  counter.classList.toggle('over', count > max);
}

/** Replaces all children of `element`. */
export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** Runs `load` whenever `sentinel` scrolls into view, until `load` resolves to false. */
export function onReachEnd(sentinel, load) {
  let busy = false;
  const observer = new IntersectionObserver(async (entries) => {
    if (busy || !entries.some((entry) => entry.isIntersecting)) return;
    busy = true;
    let more = false;
    try {
      more = await load();
    } finally {
      busy = false;
    }
    // The end (or a failure, which offers its own retry): watching on would only load the
    // last page's nothing again and again, redrawing what the list says at its end.
    if (!more) {
      observer.disconnect();
      return;
    }
    // Still in view after a short page (a tall screen): load on.
    if (sentinel.isConnected && isInView(sentinel)) {
      observer.unobserve(sentinel);
      observer.observe(sentinel);
    }
  }, { rootMargin: '400px 0px' });
  observer.observe(sentinel);
  return () => observer.disconnect();
}

function isInView(element) {
  const rect = element.getBoundingClientRect();
  return rect.top < window.innerHeight + 400 && rect.bottom > -400;
}

/** "3분 전" / "3 min ago" style relative time, in the page's language. */
export function relativeTime(iso, language) {
  const seconds = Math.round((Date.parse(iso) - Date.now()) / 1000);
  const format = new Intl.RelativeTimeFormat(language, { numeric: 'auto' });
  const steps = [[60, 'second'], [60, 'minute'], [24, 'hour'], [7, 'day'], [4.35, 'week'], [12, 'month'], [Infinity, 'year']];
  let value = seconds;
  for (const [size, unit] of steps) {
    if (Math.abs(value) < size) return format.format(Math.round(value), unit);
    value /= size;
  }
  return iso;
}
