"""Soom's web client in a real browser (headless Chromium, Selenium), against a real server.

Run through Tests/Browser/run.sh, which starts a throwaway server and passes its address in
SOOM_BASE_URL (http://127.0.0.1:PORT: a secure context, so WebCrypto works). The tests expect
a fresh server (the ranked tags are its top ten).

The app is driven only through the `data-test` hooks of the web client's contract (issue 21,
"Test hooks") and the visible labels 태그 / Tags (the tags screen) and 나 / Me (my profile,
which the hooks do not name a control for). Nothing here knows the app's routes, classes or
modules.

Environment: SOOM_BASE_URL (required); SOOM_BROWSER_CHROMIUM, SOOM_BROWSER_CHROMEDRIVER,
SOOM_BROWSER_SCREENSHOTS, SOOM_BROWSER_REPORT_DIR, SOOM_BROWSER_TIMEOUT,
SOOM_BROWSER_MAX_FIRST_LOAD_KB (see run.sh).
"""

import contextlib
import json
import os
import re
import tempfile
import time
import uuid

import pytest
from selenium import webdriver
from selenium.common.exceptions import (
    ElementClickInterceptedException,
    ElementNotInteractableException,
    NoSuchElementException,
    StaleElementReferenceException,
    TimeoutException,
    WebDriverException,
)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

BASE = os.environ.get("SOOM_BASE_URL", "").rstrip("/")
CHROMIUM = os.environ.get("SOOM_BROWSER_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("SOOM_BROWSER_CHROMEDRIVER", "/usr/bin/chromedriver")
TIMEOUT = float(os.environ.get("SOOM_BROWSER_TIMEOUT", "15"))
# Making an RSA key, signing up and the first feed page: slower than one screen change.
START_TIMEOUT = 2 * TIMEOUT
# The unread badge is refreshed by polling; the contract does not say how often.
NOTIFY_TIMEOUT = float(os.environ.get("SOOM_BROWSER_NOTIFY_TIMEOUT", "25"))
MAX_FIRST_LOAD_KB = float(os.environ.get("SOOM_BROWSER_MAX_FIRST_LOAD_KB", "300"))
REPORT_DIR = os.environ.get("SOOM_BROWSER_REPORT_DIR") or os.path.join(tempfile.gettempdir(), "soom-browser-report")
SCREENSHOTS = os.environ.get("SOOM_BROWSER_SCREENSHOTS") or os.path.join(REPORT_DIR, "screenshots")
WIDTH, HEIGHT = 390, 844  # a phone (iPhone 12–14), mobile first
TAGS_LABELS = ("태그", "Tags")
ME_LABELS = ("나", "Me", "내 프로필", "My profile", "프로필", "Profile")

if not BASE:
    pytest.exit("SOOM_BASE_URL is not set: run Tests/Browser/run.sh (it starts a server)", returncode=2)


def hook(name):
    return f'[data-test="{name}"]'


def text_of(element):
    """The element's text as in the DOM (whether or not it is scrolled into view), one-spaced."""
    return " ".join((element.get_attribute("textContent") or "").split())


def number_in(text):
    match = re.search(r"\d+", text or "")
    return int(match.group()) if match else None


def unique(prefix):
    return f"{prefix} {uuid.uuid4().hex[:8]}"


def measure(line, kind="MEASURE"):
    """A figure for the engineer's note: printed, and kept for run.sh to print at the end."""
    print(f"{kind} {line}")
    os.makedirs(REPORT_DIR, exist_ok=True)
    with open(os.path.join(REPORT_DIR, "measurements.txt"), "a", encoding="utf-8") as out:
        out.write(f"{kind} {line}\n")


# --- A browser ---------------------------------------------------------------------------------

ALL_BROWSERS = []  # every browser of the run, for the console and origin checks at the end


class Browser:
    """One headless Chromium (its own profile: its own IndexedDB, so its own device key) with
    its console and network logs kept (ChromeDriver hands each log entry out only once)."""

    def __init__(self, name, *, expect_errors=False):
        self.name = name
        self.expect_errors = expect_errors  # a test that provokes errors on purpose
        self.closed = False
        self.console = []  # ChromeDriver "browser" log entries
        self.network = []  # DevTools Network.* events from the "performance" log
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in (
            "--headless=new",
            "--no-sandbox",  # CI runs as root
            "--disable-dev-shm-usage",
            f"--window-size={WIDTH},{HEIGHT}",
            "--lang=ko-KR",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
            "--password-store=basic",
            "--disable-features=Translate,OptimizationHints,MediaRouter",
        ):
            options.add_argument(argument)
        options.add_experimental_option("prefs", {"intl.accept_languages": "ko-KR,ko,en"})
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        options.add_experimental_option("perfLoggingPrefs", {"enableNetwork": True, "enablePage": False})
        self.driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
        self.driver.set_script_timeout(30)
        self.driver.set_page_load_timeout(60)
        ALL_BROWSERS.append(self)

    # Logs
    def collect(self):
        if self.closed:
            return self
        try:
            self.console += self.driver.get_log("browser")
            for entry in self.driver.get_log("performance"):
                message = json.loads(entry["message"])["message"]
                if message.get("method", "").startswith("Network."):
                    self.network.append(message)
        except WebDriverException:
            pass
        return self

    def severe(self):
        return [entry for entry in self.collect().console if entry.get("level") == "SEVERE"]

    def request_urls(self):
        self.collect()
        urls = [m["params"]["request"]["url"] for m in self.network if m["method"] == "Network.requestWillBeSent"]
        urls += [m["params"]["url"] for m in self.network if m["method"] == "Network.webSocketCreated"]
        return urls

    def off_origin(self):
        return [url for url in self.request_urls()
                if not (url.startswith(BASE + "/") or url == BASE or url.startswith(("data:", "blob:")))]

    # Navigation and the page
    def open(self, path="/"):
        self.driver.get(BASE + path)

    def find_all(self, name, within=None):
        return (within or self.driver).find_elements(By.CSS_SELECTOR, hook(name))

    def until(self, condition, message, timeout=None):
        """Waits until `condition(driver)` is truthy (None/False/[] are not) and returns it.
        `message` (a string, or a function making one when the wait failed) says what is wrong."""
        timeout = TIMEOUT if timeout is None else timeout
        wait = WebDriverWait(self.driver, timeout, poll_frequency=0.1,
                             ignored_exceptions=(StaleElementReferenceException, NoSuchElementException))
        try:
            return wait.until(condition)
        except TimeoutException:
            text = message() if callable(message) else message
            raise AssertionError(f"[{self.name}] after {timeout:g} s: {text}{self.errors_shown()}") from None

    def errors_shown(self):
        """The words of the `error`s on screen, for a failure message."""
        try:
            words = [text_of(e) for e in self.find_all("error") if e.is_displayed()]
        except WebDriverException:
            return ""
        return f"; the page shows {hook('error')}: {words}" if words else ""

    def visible(self, name, within=None, timeout=None):
        """The first displayed element with data-test=`name`."""
        def shown(_):
            for element in self.find_all(name, within):
                if element.is_displayed():
                    return element
            return None
        return self.until(shown, f'no visible element {hook(name)}', timeout)

    def absent(self, name):
        return not any(e.is_displayed() for e in self.find_all(name))

    def click(self, element_or_name, within=None, timeout=None):
        """Clicks an element (or the first visible one with that hook) once it takes clicks."""
        def attempt(_):
            element = element_or_name if not isinstance(element_or_name, str) else next(
                (e for e in self.find_all(element_or_name, within) if e.is_displayed()), None)
            if element is None or not element.is_enabled():
                return False
            self.driver.execute_script("arguments[0].scrollIntoView({block: 'center', inline: 'nearest'})", element)
            try:
                element.click()
            except (ElementClickInterceptedException, ElementNotInteractableException):
                return False
            return True
        label = element_or_name if isinstance(element_or_name, str) else "the element"
        self.until(attempt, f"could not click {hook(label) if isinstance(element_or_name, str) else label}", timeout)

    def type_into(self, name, text, within=None):
        element = self.visible(name, within)
        element.clear()
        element.send_keys(text)
        return element

    def labelled(self, labels, timeout=None):
        """The visible link, button or tab whose text or aria-label is one of `labels`."""
        controls = "(self::a or self::button or @role='link' or @role='button' or @role='tab')"
        def find(driver):
            for label in labels:
                xpath = f"//*[{controls} and (normalize-space(.)='{label}' or @aria-label='{label}')]"
                for element in driver.find_elements(By.XPATH, xpath):
                    if element.is_displayed():
                        return element
            return None
        return self.until(find, f"no visible control labelled {' / '.join(labels)}", timeout)

    def save_artefacts(self, label):
        """Screenshot, page and console of a failed test, in the report directory."""
        if self.closed:
            return []
        folder = os.path.join(REPORT_DIR, "failures")
        os.makedirs(folder, exist_ok=True)
        stem = os.path.join(folder, re.sub(r"[^\w.-]+", "_", f"{label}-{self.name}"))
        paths = []
        with contextlib.suppress(WebDriverException):
            self.driver.save_screenshot(stem + ".png")
            paths.append(stem + ".png")
        with contextlib.suppress(WebDriverException):
            with open(stem + ".html", "w", encoding="utf-8") as out:
                out.write(f"<!-- {self.driver.current_url} -->\n" + self.driver.page_source)
            paths.append(stem + ".html")
        self.collect()
        with open(stem + ".console.txt", "w", encoding="utf-8") as out:
            for entry in self.console:
                out.write(f"{entry.get('level')} {entry.get('source', '')} {entry.get('message')}\n")
            out.write("\nRequests:\n")
            for url in self.request_urls():
                out.write(url + "\n")
        paths.append(stem + ".console.txt")
        return paths

    def quit(self):
        if self.closed:
            return
        self.collect()
        self.closed = True
        with contextlib.suppress(Exception):
            self.driver.quit()


@pytest.fixture
def browsers(request):
    """Makes browsers for one test; quits them after it, keeping artefacts when it failed."""
    made = []

    def make(name="browser", **kwargs):
        browser = Browser(name, **kwargs)
        made.append(browser)
        return browser

    yield make
    failed = any(getattr(getattr(request.node, f"rep_{when}", None), "failed", False) for when in ("setup", "call"))
    for browser in made:
        if failed:
            paths = browser.save_artefacts(request.node.name)
            print(f"[{browser.name}] at {browser.driver.current_url if paths else '?'}; artefacts: {', '.join(paths)}")
            for entry in browser.severe():
                print(f"[{browser.name}] console SEVERE: {entry.get('message')}")
        browser.quit()


@contextlib.contextmanager
def step(description):
    """Names the step of a journey that failed."""
    try:
        yield
    except AssertionError as error:
        raise AssertionError(f"step '{description}': {error}") from None
    except WebDriverException as error:
        raise AssertionError(f"step '{description}': {type(error).__name__}: {error.msg}") from None


# --- What a person does, through the hooks ------------------------------------------------------

def start(browser):
    """A new visitor: opens the page, presses `start`, and sees `feed` (not an `error`)."""
    browser.open("/")
    browser.click("start", timeout=START_TIMEOUT)
    script = """
        const visible = (element) => element && element.getClientRects().length > 0
          && getComputedStyle(element).visibility !== 'hidden';
        if (visible(document.querySelector(arguments[0]))) return 'feed';
        return [...document.querySelectorAll(arguments[1])].some(visible) ? 'error' : null;"""
    outcome = browser.until(lambda d: d.execute_script(script, hook("feed"), hook("error")),
                            f"{hook('feed')} is not shown after pressing {hook('start')}", START_TIMEOUT)
    assert outcome == "feed", f"pressing {hook('start')} ends in an error{browser.errors_shown()}"
    assert browser.absent("start"), f"{hook('start')} is still shown next to {hook('feed')}"


def after_load(browser, name):
    """After a (re)load: waits until `name` is shown; fails when the start screen stays instead
    (the account was lost)."""
    script = """
        const visible = (element) => element && element.getClientRects().length > 0
          && getComputedStyle(element).visibility !== 'hidden';
        if (visible(document.querySelector(arguments[0]))) return 'shown';
        return visible(document.querySelector(arguments[1])) ? 'start' : null;"""
    start_seen = []

    def check(driver):
        state = driver.execute_script(script, hook(name), hook("start"))
        if state == "start":
            start_seen.append(time.monotonic())
            return "start" if start_seen[-1] - start_seen[0] >= 2 else None
        return state
    state = browser.until(check, f"{hook(name)} is not shown after loading the page", START_TIMEOUT)
    assert state == "shown", f"the page shows {hook('start')}, as to a new visitor, instead of {hook(name)}"


def feed_cards(browser):
    return browser.driver.find_elements(By.CSS_SELECTOR, f'{hook("feed")} {hook("card")}')


def top_card_id(browser):
    cards = feed_cards(browser)
    return cards[0].get_attribute("data-card-id") if cards else None


def wait_top_card(browser, text, timeout=None):
    """Waits until the first `card` of `feed` holds `text` in its `card-content`; returns it."""
    def check(_):
        cards = feed_cards(browser)
        if not cards:
            return None
        contents = browser.find_all("card-content", cards[0])
        return cards[0] if contents and text in text_of(contents[0]) and cards[0].is_displayed() else None
    return browser.until(check, lambda: f"the first card of {hook('feed')} does not hold {text!r} "
                                        f"(first cards: {[text_of(c)[:60] for c in feed_cards(browser)[:3]]})", timeout)


def compose(browser, text, tags=None):
    """Opens the composer, writes, presses `compose-submit`."""
    browser.click("compose")
    browser.type_into("compose-text", text)
    if tags is not None:
        browser.type_into("compose-tags", tags)
    browser.click("compose-submit")


def post(browser, text, tags=None):
    """Posts a card and waits until it is on top of `feed`; returns its id."""
    compose(browser, text, tags)
    card = wait_top_card(browser, text)
    card_id = card.get_attribute("data-card-id")
    assert card_id, f"the new card has no data-card-id: {card.get_attribute('outerHTML')[:300]}"
    return card_id


def feed_card(browser, card_id, timeout=None):
    selector = f'{hook("feed")} {hook("card")}[data-card-id="{card_id}"]'
    return browser.until(lambda d: next((e for e in d.find_elements(By.CSS_SELECTOR, selector) if e.is_displayed()), None),
                         f"no card {card_id} in {hook('feed')}", timeout)


def open_card(browser, card):
    """Opens a card by its `card-content`; returns `card-detail`."""
    browser.click(browser.find_all("card-content", card)[0])
    return browser.visible("card-detail")


def detail_card(browser, card_id):
    """The open card itself inside `card-detail` (not one of its comment cards)."""
    selector = f'{hook("card-detail")} {hook("card")}[data-card-id="{card_id}"]'
    return browser.until(lambda d: next((e for e in d.find_elements(By.CSS_SELECTOR, selector) if e.is_displayed()), None),
                         f"{hook('card-detail')} holds no {hook('card')} with data-card-id {card_id}")


def like_count(browser, card):
    counts = browser.find_all("like-count", card)
    assert counts, f"no {hook('like-count')} in the card"
    value = number_in(text_of(counts[0]))
    assert value is not None, f"{hook('like-count')} shows no number: {text_of(counts[0])!r}"
    return value


def toggle_like(browser, card, expected):
    browser.click(browser.find_all("like", card)[0])
    browser.until(lambda _: like_count(browser, card) == expected,
                  lambda: f"{hook('like-count')} did not become {expected} (shows {like_count(browser, card)})")


def comment(browser, text):
    detail = browser.visible("card-detail")
    browser.type_into("comment-text", text, within=detail)
    browser.click("comment-submit", within=detail)


def wait_comment(browser, text):
    def check(_):
        lists = [e for e in browser.find_all("comments") if e.is_displayed()]
        for comments in lists:
            for card in browser.find_all("card", comments):
                if text in text_of(card) and card.is_displayed():
                    return card
        return None
    return browser.until(check, f"no {hook('card')} holding {text!r} in {hook('comments')}")


def my_nickname(browser):
    browser.click(browser.labelled(ME_LABELS))
    element = browser.until(lambda _: next((e for e in browser.find_all("me-nickname") if e.is_displayed() and text_of(e)), None),
                            f"no visible, non-empty {hook('me-nickname')}")
    return text_of(element)


def unread(browser):
    badges = browser.find_all("unread-count")
    return number_in(text_of(badges[0])) if badges else None


GLITCH = re.compile(r"(?<![\w-])(null|undefined|NaN)(?![\w-])|\[object \w+\]|\{\{?[A-Za-z_]+\}\}?")


def glitches(browser, where):
    """Program words shown to people ("null", "undefined", "NaN", "[object Object]", a
    "{placeholder}" left in a string): a list of findings, empty when the screen is clean."""
    text = browser.driver.execute_script("return document.body.innerText") or ""
    found = []
    for match in GLITCH.finditer(text):
        context = " ".join(text[max(0, match.start() - 40):match.end() + 40].split())
        found.append(f"{where}: {match.group()!r} in “…{context}…”")
    return found


def export_attempts(browser):
    """Reads the stored device key from IndexedDB and tries to get the private key out."""
    script = r"""
    const done = arguments[arguments.length - 1];
    (async () => {
      const database = await new Promise((resolve, reject) => {
        const request = indexedDB.open('soom');
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      try {
        if (!database.objectStoreNames.contains('keys'))
          return { error: `no object store "keys" in database "soom" (it has: ${[...database.objectStoreNames].join(', ')})` };
        const pair = await new Promise((resolve, reject) => {
          const request = database.transaction('keys', 'readonly').objectStore('keys').get('device');
          request.onsuccess = () => resolve(request.result);
          request.onerror = () => reject(request.error);
        });
        if (!pair) return { error: 'no value under the key "device" in the store "keys"' };
        const { privateKey, publicKey } = pair;
        if (!(privateKey instanceof CryptoKey)) return { error: `privateKey is not a CryptoKey: ${Object.prototype.toString.call(privateKey)}` };
        const result = {
          type: privateKey.type, extractable: privateKey.extractable, usages: privateKey.usages,
          algorithm: privateKey.algorithm.name, modulusLength: privateKey.algorithm.modulusLength,
          publicIsCryptoKey: publicKey instanceof CryptoKey, attempts: {},
        };
        const attempt = async (name, work) => {
          try { await work(); result.attempts[name] = 'succeeded'; }
          catch (error) { result.attempts[name] = `rejected: ${error.name}`; }
        };
        await attempt('pkcs8', () => crypto.subtle.exportKey('pkcs8', privateKey));
        await attempt('jwk', () => crypto.subtle.exportKey('jwk', privateKey));
        const wrapping = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['wrapKey']);
        await attempt('wrapKey', () => crypto.subtle.wrapKey('pkcs8', privateKey, wrapping,
          { name: 'AES-GCM', iv: crypto.getRandomValues(new Uint8Array(12)) }));
        // It still signs, and the stored public key verifies what it signs.
        const parameters = privateKey.algorithm.name === 'RSA-PSS' ? { name: 'RSA-PSS', saltLength: 32 } : { name: privateKey.algorithm.name };
        const data = new TextEncoder().encode('soom browser test');
        const signature = await crypto.subtle.sign(parameters, privateKey, data);
        result.verifies = await crypto.subtle.verify(parameters, publicKey, signature, data);
        const spki = new Uint8Array(await crypto.subtle.exportKey('spki', publicKey));
        result.publicKey = btoa(String.fromCharCode(...spki));
        return result;
      } finally {
        database.close();
      }
    })().then(done, (error) => done({ error: `${error.name}: ${error.message}` }));
    """
    return browser.driver.execute_async_script(script)


# --- Measurements -------------------------------------------------------------------------------

# Installed before any page script runs (DevTools, so the page's CSP does not apply): marks when
# `start` and the first `card` of `feed` enter the page, in ms since the navigation started.
MARKER = """
(() => {
  const mark = () => {
    if (window.__soomStartShown === undefined && document.querySelector('[data-test="start"]'))
      window.__soomStartShown = performance.now();
    if (window.__soomFirstCard === undefined && document.querySelector('[data-test="feed"] [data-test="card"]'))
      window.__soomFirstCard = performance.now();
  };
  new MutationObserver(mark).observe(document, { childList: true, subtree: true });
})();
"""


class Traffic:
    """Network events of a page load: bytes transferred (encodedDataLength, headers included)."""

    def __init__(self, events):
        self.events = events

    @property
    def requests(self):
        return [m["params"] for m in self.events if m["method"] == "Network.requestWillBeSent"]

    @property
    def bytes(self):
        return sum(m["params"].get("encodedDataLength", 0) for m in self.events if m["method"] == "Network.loadingFinished")

    def pending(self):
        started = {m["params"]["requestId"] for m in self.events if m["method"] == "Network.requestWillBeSent"}
        ended = {m["params"]["requestId"] for m in self.events
                 if m["method"] in ("Network.loadingFinished", "Network.loadingFailed")}
        return started - ended

    def repeated(self):
        seen, repeated = set(), []
        for request in self.requests:
            key = (request["request"]["method"], request["request"]["url"])
            if key in seen and key not in repeated:
                repeated.append(key)
            seen.add(key)
        return repeated

    def summary(self):
        cached = {m["params"]["requestId"] for m in self.events if m["method"] == "Network.requestServedFromCache"}
        cached |= {m["params"]["requestId"] for m in self.events if m["method"] == "Network.responseReceived"
                   and (m["params"]["response"].get("fromDiskCache") or m["params"]["response"].get("fromPrefetchCache"))}
        return (f"{self.bytes / 1024:.1f} KB in {len(self.requests)} requests"
                + (f" ({len(cached)} of them from the browser's cache)" if cached else ""))


def settle(browser, since, quiet=0.6, timeout=None):
    """Waits until the page has no request in flight for `quiet` seconds; returns the traffic
    since index `since` of the browser's network log."""
    deadline = time.monotonic() + (timeout or TIMEOUT)
    calm_since = None
    while time.monotonic() < deadline:
        browser.collect()
        traffic = Traffic(browser.network[since:])
        if traffic.pending():
            calm_since = None
        elif calm_since is None:
            calm_since = time.monotonic()
        elif time.monotonic() - calm_since >= quiet:
            return traffic
        time.sleep(0.1)
    return Traffic(browser.network[since:])


# --- The tests ----------------------------------------------------------------------------------

def test_first_load_weight_and_time_to_first_card(browsers):
    """First in the file, so the feed holds just the one card posted before (a fresh server)."""
    seed = browsers("seed")
    start(seed)
    post(seed, unique("첫 카드: 오늘도 숨 한 번 크게 쉬어요"))
    seed.quit()

    visitor = browsers("visitor")
    visitor.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": MARKER})
    visitor.collect()
    mark = len(visitor.network)
    visitor.open("/")
    visitor.visible("start", timeout=START_TIMEOUT)
    page = settle(visitor, mark)
    start_shown = visitor.driver.execute_script("return window.__soomStartShown") or float("nan")
    mark = len(visitor.network)
    pressed = visitor.driver.execute_script("return performance.now()")
    visitor.click("start")
    visitor.until(lambda _: next((c for c in feed_cards(visitor) if c.is_displayed()), None),
                  f"no visible {hook('card')} in {hook('feed')} after start", START_TIMEOUT)
    first_card = visitor.driver.execute_script("return window.__soomFirstCard") or float("nan")
    after_start = settle(visitor, mark)
    total = Traffic(page.events + after_start.events)

    # The same person comes back: a new navigation, files from the cache, a login signed with the
    # stored key instead of a sign-up.
    visitor.driver.get("about:blank")
    visitor.collect()
    mark = len(visitor.network)
    visitor.open("/")
    visitor.until(lambda _: next((c for c in feed_cards(visitor) if c.is_displayed()), None),
                  f"no visible {hook('card')} in {hook('feed')} after coming back", START_TIMEOUT)
    returning_card = visitor.driver.execute_script("return window.__soomFirstCard") or float("nan")
    returning = settle(visitor, mark)

    measure(f"first load, new visitor, empty cache: the start screen {page.summary()}; "
            f"through start to the first card {total.summary()} (budget {MAX_FIRST_LOAD_KB:g} KB)")
    measure(f"time to first card, new visitor: start screen at {start_shown:.0f} ms after navigation; first card "
            f"{first_card - pressed:.0f} ms after pressing start (device key, sign-up, feed), "
            f"{first_card:.0f} ms after navigation with the test pressing start at {pressed:.0f} ms")
    measure(f"time to first card, returning visitor (cached files, login signed with the stored key): "
            f"{returning_card:.0f} ms after navigation; {returning.summary()}")
    for label, traffic in (("first load", total), ("returning visit", returning)):
        if traffic.repeated():
            measure(f"fetched more than once during the {label}: " + ", ".join(f"{m} {u}" for m, u in traffic.repeated()))
    assert page.bytes <= MAX_FIRST_LOAD_KB * 1024, \
        f"the first load of the start screen transfers {page.summary()}, over {MAX_FIRST_LOAD_KB:g} KB"


def walk_journey(browser, tag):
    """Start → feed → post with tags → top of feed → open → comment → like → tags → my profile."""
    text = unique("퇴근길 하늘이 참 예뻤어요")
    seen = []  # program words on screen: reported at the end, so the journey goes on
    with step("start: press start, see the feed"):
        start(browser)
        assert browser.absent("start"), f"{hook('start')} still shown after signing up"
    with step("compose a card with tags; it is on top of the feed"):
        card_id = post(browser, text, f"#{tag}, 하늘 퇴근길")
        seen += glitches(browser, "the feed")
    with step("open the card by its card-content"):
        detail = open_card(browser, feed_card(browser, card_id))
        assert text in text_of(detail), f"{hook('card-detail')} does not show the card's text {text!r}"
    with step("comment on it; the comment is in comments"):
        reply = unique("저도 오늘 봤어요")
        comment(browser, reply)
        wait_comment(browser, reply)
        seen += glitches(browser, "the open card")
    with step("like it and unlike it; like-count follows"):
        card = detail_card(browser, card_id)
        before = like_count(browser, card)
        toggle_like(browser, card, before + 1)
        toggle_like(browser, card, before)
        toggle_like(browser, card, before + 1)
    with step("the tags screen (태그 / Tags) ranks the tag just used"):
        browser.click(browser.labelled(TAGS_LABELS))
        ranked = browser.visible("ranked-tags")
        browser.until(lambda _: any(tag.lower() in text_of(t).lower() for t in browser.find_all("tag", ranked)),
                      lambda: f"no {hook('tag')} {tag!r} in {hook('ranked-tags')}: "
                              f"{[text_of(t) for t in browser.find_all('tag', ranked)]}")
        seen += glitches(browser, "the tags screen")
    with step("my profile (나 / Me) shows my nickname"):
        nickname = my_nickname(browser)
        assert 1 <= len(nickname) <= 40, f"{hook('me-nickname')} is {nickname!r}"
        seen += glitches(browser, "my profile")
    with step("no program words (null, undefined, NaN, [object …], {placeholder}) on any screen"):
        assert not seen, "shown to people:\n" + "\n".join(seen)
    return card_id


@pytest.fixture(scope="module")
def journey():
    """One walk through the journey in one browser, shared by the journey, console and origin
    tests. Yields (browser, card id or None, the failure or None)."""
    browser = Browser("journey")
    try:
        card_id, failure = walk_journey(browser, "a" + uuid.uuid4().hex[:8]), None
    except AssertionError as error:
        card_id, failure = None, error
        paths = browser.save_artefacts("journey")
        failure = AssertionError(f"{error}\n(at {browser.driver.current_url}; artefacts: {', '.join(paths)})")
    yield browser, card_id, failure
    browser.quit()


def test_journey(journey):
    _, _, failure = journey
    if failure:
        raise failure


def test_two_browsers_one_likes_the_other_is_notified(browsers):
    alice, bob = browsers("alice"), browsers("bob")
    with step("A starts and posts"):
        start(alice)
        card_id = post(alice, unique("누가 공감해 줄까요"))
    with step("B starts, sees A's card in the feed and likes it"):
        start(bob)
        card = feed_card(bob, card_id)
        before = like_count(bob, card)
        toggle_like(bob, card, before + 1)
    with step(f"A's unread-count becomes at least 1 (polled up to {NOTIFY_TIMEOUT:g} s)"):
        badge = alice.until(lambda _: next((e for e in alice.find_all("unread-count") if e.is_displayed()
                                            and (number_in(text_of(e)) or 0) >= 1), None),
                            lambda: f"{hook('unread-count')} stays at {unread(alice)!r}", NOTIFY_TIMEOUT)
        assert number_in(text_of(badge)) >= 1
    with step("A opens notifications and sees a notification"):
        alice.click("notifications")
        entry = alice.visible("notification")
        assert text_of(entry), f"the {hook('notification')} is empty"
        shown = glitches(alice, "the notifications")
        assert not shown, "shown to people:\n" + "\n".join(shown)


def test_reload_keeps_the_account(browsers):
    browser = browsers("reloader")
    with step("start, read my nickname"):
        start(browser)
        nickname = my_nickname(browser)
    with step("reload on my profile: the same nickname"):
        browser.driver.refresh()
        after_load(browser, "me-nickname")
        assert my_nickname(browser) == nickname, "after a reload my profile shows another nickname"
    with step("open the page anew: the feed"):
        browser.open("/")
        after_load(browser, "feed")
    with step("reload on the home screen: the feed again, the same account"):
        browser.driver.refresh()
        after_load(browser, "feed")
        assert my_nickname(browser) == nickname, "after two reloads my profile shows another nickname"


def test_the_device_key_cannot_be_exported(browsers):
    browser = browsers("key")
    start(browser)
    result = export_attempts(browser)
    assert "error" not in result, result.get("error")
    assert result["type"] == "private", result
    assert result["extractable"] is False, f"privateKey.extractable is {result['extractable']!r}"
    for attempt in ("pkcs8", "jwk", "wrapKey"):
        assert result["attempts"][attempt].startswith("rejected"), \
            f"crypto.subtle {attempt} of the private key {result['attempts'][attempt]}"
    assert result["usages"] == ["sign"], f"the private key's usages: {result['usages']}"
    assert result["algorithm"] in ("RSA-PSS", "RSASSA-PKCS1-v1_5"), result["algorithm"]
    assert 2048 <= result["modulusLength"] <= 4096, result["modulusLength"]
    assert result["publicIsCryptoKey"] and result["verifies"], "the stored public key does not verify the key's signature"
    # The same key after a reload (the account is that key).
    browser.driver.refresh()
    after_load(browser, "feed")
    again = export_attempts(browser)
    assert again.get("publicKey") == result["publicKey"], "after a reload the stored key is another one"
    assert again.get("extractable") is False


def shown_errors(browser):
    return {element.id for element in browser.find_all("error")}


def new_error(browser, before, after_what):
    """Waits for a visible `error` that was not there before; it must say something."""
    error = browser.until(lambda _: next((e for e in browser.find_all("error") if e.id not in before and e.is_displayed()), None),
                          f"no (new) visible {hook('error')} after {after_what}")
    assert text_of(error), f"the {hook('error')} after {after_what} has no words"
    assert not GLITCH.search(text_of(error)), f"the {hook('error')} after {after_what} says {text_of(error)!r}"
    return error


def submit_too_long(browser, field, submit, text, within=None):
    """Types a text over the 500-character limit and submits it: the app must show `error`
    (unless the field itself refuses the excess characters: then nothing is submitted)."""
    element = browser.type_into(field, text, within)
    kept = browser.driver.execute_script("return arguments[0].value.length", element)
    if kept <= 500:
        measure(f"{hook(field)} keeps only {kept} of the {len(text)} characters typed (no error needed)", "NOTE")
        return
    before = shown_errors(browser)
    browser.click(submit, within)
    new_error(browser, before, f"submitting {len(text)} characters in {hook(field)}")


def test_errors_are_shown(browsers):
    browser = browsers("errors", expect_errors=True)
    start(browser)
    top = post(browser, unique("오류를 보기 전의 카드"))
    with step("an empty card: error"):
        browser.click("compose")
        browser.visible("compose-text").clear()
        before = shown_errors(browser)
        browser.click("compose-submit")
        new_error(browser, before, "submitting an empty card")
    with step("a card of spaces only: error"):
        browser.type_into("compose-text", "     ")
        before = shown_errors(browser)
        browser.click("compose-submit")
        new_error(browser, before, "submitting a card of spaces")
    with step("a card of 501 characters: error"):
        submit_too_long(browser, "compose-text", "compose-submit", "가" * 501)
    with step("nothing of that reached the feed"):
        assert top_card_id(browser) == top, "an invalid card reached the feed"
    with step("exactly 500 characters are accepted, and the card is on top of the feed"):
        text = ("바람이 분다 살아야겠다 " * 50)[:490] + uuid.uuid4().hex[:10]
        assert len(text) == 500
        browser.type_into("compose-text", text)
        browser.click("compose-submit")
        card = wait_top_card(browser, text[-40:])
        assert browser.absent("error"), "an error is still shown after a valid card was posted"
    with step("a comment of 501 characters: error, and it is not in the comments"):
        detail = open_card(browser, card)
        submit_too_long(browser, "comment-text", "comment-submit", "나" * 501, within=detail)
        comments = [e for e in browser.find_all("comments") if e.is_displayed()]
        assert not any("나" * 501 in text_of(c) for c in comments), "a 501-character comment was posted"


def test_screenshots(browsers):
    """Cards and comments that look like real use, on a phone-sized screen (for the README)."""
    os.makedirs(SCREENSHOTS, exist_ok=True)
    writer, reader = browsers("writer"), browsers("reader")
    for browser in (writer, reader):
        browser.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                       {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 2, "mobile": True})
    start(writer)
    cards = [
        ("오늘 처음으로 혼자 바다를 보러 갔어요. 파도 소리만 들리니까 마음이 조금 가벼워졌어요.", "바다 혼자여행"),
        ("퇴근길 하늘이 분홍색이었어요. 다들 오늘 하루도 고생 많았어요.", "하늘 퇴근길"),
        ("시험 끝! 이제 잠부터 푹 자고 싶어요. 내일은 아무것도 안 할 거예요.", "일상"),
    ]
    ids = [post(writer, text, tags) for text, tags in cards]
    start(reader)
    for card_id in ids[1:]:
        toggle_like(reader, feed_card(reader, card_id), 1)
    open_card(reader, feed_card(reader, ids[1]))
    comment(reader, "저도 오늘 그 하늘 봤어요! 사진 찍을 걸 그랬어요.")
    wait_comment(reader, "저도 오늘 그 하늘 봤어요")
    comment(reader, "고생 많으셨어요. 푹 쉬세요 :)")
    wait_comment(reader, "고생 많으셨어요")

    writer.open("/")
    after_load(writer, "feed")
    wait_top_card(writer, cards[-1][0])
    feed_path = os.path.join(SCREENSHOTS, "home-feed.png")
    snapshot(writer, feed_path)
    open_card(writer, feed_card(writer, ids[1]))
    wait_comment(writer, "고생 많으셨어요")
    comments = writer.visible("comments")
    card_path = os.path.join(SCREENSHOTS, "card-detail.png")
    snapshot(writer, card_path)
    comments_path = os.path.join(SCREENSHOTS, "card-comments.png")
    snapshot(writer, comments_path, scroll_to=comments)
    measure(f"screenshots ({WIDTH}×{HEIGHT} CSS px, 2× pixels): {feed_path}, {card_path}, {comments_path}")


def snapshot(browser, path, scroll_to=None):
    """A screenshot once the images in view have loaded and the fonts are ready; at the top of
    the page, or with `scroll_to` (an element) near the top of the screen."""
    if scroll_to is None:
        browser.driver.execute_script("window.scrollTo(0, 0)")
    else:
        browser.driver.execute_script("arguments[0].scrollIntoView({block: 'start'}); window.scrollBy(0, -140)", scroll_to)
    browser.driver.execute_async_script("document.fonts.ready.then(() => arguments[arguments.length - 1]())")
    script = """
        return [...document.images].filter((image) => {
          const box = image.getBoundingClientRect();
          return box.bottom > 0 && box.top < innerHeight && box.width > 0;
        }).every((image) => image.complete);"""
    with contextlib.suppress(AssertionError):
        browser.until(lambda d: d.execute_script(script), "images still loading", 5)
    time.sleep(0.3)  # transitions
    assert browser.driver.save_screenshot(path), f"could not save {path}"


def test_no_console_errors(journey):
    """No SEVERE console entry (script error, console.error, failed load, CSP violation) in the
    journey (and a reload of it), nor in any other browser of this run that expected none."""
    browser, _, _ = journey
    browser.open("/")
    with contextlib.suppress(AssertionError):
        after_load(browser, "feed")
    settle(browser, len(browser.collect().network))
    problems = [f"[{b.name}] {e.get('source', '')}: {e.get('message')}"
                for b in ALL_BROWSERS if not b.expect_errors for e in b.severe()]
    assert not problems, "console errors:\n" + "\n".join(problems)


def test_no_request_leaves_the_origin(journey):
    """Every request of every browser of this run went to the server under test, and the page
    did not even try another origin (an attempt the CSP blocked leaves no request behind, only a
    console entry)."""
    browser, _, _ = journey
    assert browser.request_urls(), "no network events were recorded (is the performance log on?)"
    problems = [f"[{b.name}] request: {url}" for b in ALL_BROWSERS for url in b.off_origin()]
    problems += [f"[{b.name}] blocked by the CSP: {e.get('message')}" for b in ALL_BROWSERS for e in b.console
                 if "Content Security Policy" in (e.get("message") or "")
                 and any(not url.startswith(BASE + "/") for url in re.findall(r"(?:https?|wss?)://[^\s'\"]+", e["message"]))]
    assert not problems, f"requests to other origins than {BASE}:\n" + "\n".join(problems)
