// Korean first, English second. The page follows the browser's language until the person
// picks one (kept in localStorage: a preference, nothing that identifies anyone).
//
// Each module keeps its own words: `const t = strings({ko: {...}, en: {...}})`, then
// `t('key', {name: 'x'})` fills `{name}`. A key missing in English falls back to Korean.
// A count's words follow the language's plural rules: the entry is then an object by
// `Intl.PluralRules` category (`{one: '{count} comment', other: '{count} comments'}`), chosen by
// the number in `{count}`.

const STORAGE_KEY = 'soom.language';
export const LANGUAGES = ['ko', 'en'];
const listeners = new Set();

/** localStorage, or nothing when the browser blocks it (then it throws on every access):
 * preferences are then simply not kept, and the page still works. */
export function readPreference(key) {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function writePreference(key, value) {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // Not kept: storage is blocked.
  }
}

function initialLanguage() {
  const saved = readPreference(STORAGE_KEY);
  if (LANGUAGES.includes(saved)) return saved;
  for (const wanted of navigator.languages ?? [navigator.language]) {
    const base = String(wanted).toLowerCase().split('-')[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return 'ko';
}

let current = initialLanguage();
document.documentElement.lang = current;

export function language() {
  return current;
}

export function setLanguage(next) {
  if (!LANGUAGES.includes(next) || next === current) return;
  current = next;
  writePreference(STORAGE_KEY, next);
  document.documentElement.lang = next;
  for (const listener of listeners) listener(next);
}

/** Calls `listener` after every language change. */
export function onLanguageChange(listener) {
  listeners.add(listener);
}

const pluralRules = new Map();

function plural(forms, count) {
  if (typeof forms === 'string') return forms;
  if (!pluralRules.has(current)) pluralRules.set(current, new Intl.PluralRules(current));
  const category = typeof count === 'number' ? pluralRules.get(current).select(count) : 'other';
  return forms[category] ?? forms.other;
}

export function strings(table) {
  return (key, values = {}) => {
    const template = plural(table[current]?.[key] ?? table.ko?.[key] ?? key, values.count);
    const shown = (name) => (name === 'count' && typeof values.count === 'number' ? values.count.toLocaleString(current) : String(values[name]));
    return template.replace(/\{(\w+)\}/g, (_, name) => (name in values ? shown(name) : `{${name}}`));
  };
}
