// The built-in backgrounds (GET /v1/images/defaults), fetched once per page load.

import { api } from './api.js';

let loaded = null;

/** `[{name, category, url}]`, in the server's order. */
export function defaultBackgrounds() {
  loaded ??= api('GET', '/images/defaults', { auth: false }).then((list) => list.items).catch((error) => {
    loaded = null;
    throw error;
  });
  return loaded;
}
