// Hash routes (`#/cards/ID`): the server serves one page, so every screen is a fragment and a
// reload or a shared link opens the same screen.

const routes = [];
let current = null;
let onChange = null;

/** Adds a route: `pattern` like '/cards/:id'; `view(main, params)` may return a cleanup function. */
export function route(pattern, view) {
  const names = [];
  const regex = new RegExp('^' + pattern.replace(/:(\w+)/g, (_, name) => (names.push(name), '([^/]+)')) + '$');
  routes.push({ regex, names, view });
}

export function href(path) {
  return '#' + path;
}

export function navigate(path) {
  if (location.hash === '#' + path) render();
  else location.hash = path;
}

export function currentPath() {
  return location.hash.replace(/^#/, '') || '/';
}

/** Renders the current hash into `main` now and after every change. `changed(path)` runs first. */
let listener = null;

export function start(main, changed) {
  stop();
  onChange = changed;
  listener = () => render(main);
  window.addEventListener('hashchange', listener);
  render(main);
}

/** Stops following the hash (signed out): the current screen's cleanup runs. */
export function stop() {
  if (listener) window.removeEventListener('hashchange', listener);
  listener = null;
  if (typeof current === 'function') current();
  current = null;
}

function render(main = document.querySelector('main')) {
  const path = currentPath();
  if (typeof current === 'function') current();
  current = null;
  onChange?.(path);
  main.replaceChildren();
  window.scrollTo(0, 0);
  for (const { regex, names, view } of routes) {
    const match = regex.exec(path);
    if (!match) continue;
    // A malformed escape (a hand-typed `%`) is taken as written rather than breaking the page.
    const decode = (text) => {
      try {
        return decodeURIComponent(text);
      } catch {
        return text;
      }
    };
    const params = Object.fromEntries(names.map((name, index) => [name, decode(match[index + 1])]));
    current = view(main, params) ?? null;
    main.focus({ preventScroll: true });
    return;
  }
  navigate('/');
}
