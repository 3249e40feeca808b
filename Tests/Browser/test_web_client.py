"""Soom's web client in a real browser (headless Chromium, Selenium), against a real server.

Run through Tests/Browser/run.sh, which starts a throwaway server and passes its address in
SOOM_BASE_URL (http://127.0.0.1:PORT: a secure context, so WebCrypto works). The tests expect
a fresh server (the ranked tags are its top ten).

The app is driven only through the `data-test` hooks of the web client's contract (issue 21,
"Test hooks") and the web client's further `data-test` hooks, the visible labels 태그 / Tags (the
tags screen) and 나 / Me (my profile, which the hooks do not name a control for), and, where no
hook exists, the visible words, accessible names and ids listed above the account/people/safety
tests. Nothing here knows the app's routes, classes or modules.

Environment: SOOM_BASE_URL (required); SOOM_BROWSER_CHROMIUM, SOOM_BROWSER_CHROMEDRIVER,
SOOM_BROWSER_SCREENSHOTS, SOOM_BROWSER_REPORT_DIR, SOOM_BROWSER_TIMEOUT,
SOOM_BROWSER_MAX_FIRST_LOAD_KB (see run.sh); SOOM_BROWSER_ADMIN and SOOM_BROWSER_DATA_DIR, the
server's binary and data directory, for the operator's commands (`soom admin`).
"""

import base64
import contextlib
import json
import os
import re
import struct
import subprocess
import tempfile
import time
import uuid
import zlib

import pytest
from selenium import webdriver
from selenium.common.exceptions import (
    ElementClickInterceptedException,
    ElementNotInteractableException,
    NoAlertPresentException,
    NoSuchElementException,
    StaleElementReferenceException,
    TimeoutException,
    WebDriverException,
)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
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
DESKTOP = (1280, 800)  # a laptop
TAGS_LABELS = ("태그", "Tags")
ME_LABELS = ("나", "Me", "내 프로필", "My profile", "프로필", "Profile")

ADMIN = os.environ.get("SOOM_BROWSER_ADMIN", "")
DATA_DIR = os.environ.get("SOOM_BROWSER_DATA_DIR", "")

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

    def labelled_now(self, labels):
        """Like `labelled`, without waiting: the control, or None."""
        controls = "(self::a or self::button or @role='link' or @role='button' or @role='tab')"
        for label in labels:
            xpath = f"//*[{controls} and (normalize-space(.)='{label}' or @aria-label='{label}')]"
            for element in self.driver.find_elements(By.XPATH, xpath):
                if element.is_displayed():
                    return element
        return None

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
    # An expected failure (xfail: a known app bug) leaves its evidence behind too.
    failed = failed or hasattr(getattr(request.node, "rep_call", None), "wasxfail")
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
        # The open card is fetched after the screen appears: wait for it.
        browser.until(lambda _: text in text_of(detail), lambda: f"{hook('card-detail')} does not show the card's text {text!r}")
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
    """Cards and comments that look like real use, on a phone-sized screen and on a desktop (for
    the README: home-feed, card-detail and card-comments, each also as …-desktop)."""
    os.makedirs(SCREENSHOTS, exist_ok=True)
    writer, reader = browsers("writer"), browsers("reader")
    for browser in (writer, reader):
        browser.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                       {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 2, "mobile": True})
    start(writer)
    cards = [
        ("오늘 처음으로 혼자 바다를 보러 갔어요. 파도 소리만 들리니까 마음이 조금 가벼워졌어요.", "바다 혼자여행", "sea-wave"),
        ("퇴근길 하늘이 분홍색이었어요. 다들 오늘 하루도 고생 많았어요.", "하늘 퇴근길", "sky-dawn"),
        ("시험 끝! 이제 잠부터 푹 자고 싶어요. 내일은 아무것도 안 할 거예요.", "일상", "paper-cream"),
    ]
    ids = []
    for text, tags, background in cards:
        writer.click("compose")
        dialog = open_dialog(writer, holding="compose-text")
        writer.click(dialog.find_element(By.CSS_SELECTOR, f'[role=radio][aria-label="{background}"]'))
        writer.type_into("compose-text", text, within=dialog)
        writer.type_into("compose-tags", tags, within=dialog)
        writer.click("compose-submit", within=dialog)
        ids.append(wait_top_card(writer, text).get_attribute("data-card-id"))
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

    writer.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                  {"width": DESKTOP[0], "height": DESKTOP[1], "deviceScaleFactor": 1, "mobile": False})
    writer.click("nav-home")
    wait_top_card(writer, cards[-1][0])
    desktop = [os.path.join(SCREENSHOTS, f"{name}-desktop.png") for name in ("home-feed", "card-detail", "card-comments")]
    snapshot(writer, desktop[0])
    open_card(writer, feed_card(writer, ids[1]))
    wait_comment(writer, "고생 많으셨어요")
    snapshot(writer, desktop[1])
    snapshot(writer, desktop[2], scroll_to=writer.visible("comments"))
    measure(f"screenshots ({DESKTOP[0]}×{DESKTOP[1]} CSS px): {', '.join(desktop)}")


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


# --- More of what a person does: the account, people, safety, photos, tags, language, keyboard,
# screen sizes ---------------------------------------------------------------------------------
#
# Where the contract names no hook, these tests use the app's visible words, accessible names or
# ids (each could become a `data-test` hook):
#   start screen: the disclosure (<summary>) 다른 기기에서 옮겨 오기 / Move here from another device,
#     the field #transfer-code, the button 계정 옮겨 오기 / Move my account here, the button
#     다시 로그인 / Sign in again;
#   a card: its author link (the link in the card whose accessible name is the author's
#     nickname), its tag links (aria-label "#TAG 태그 보기" / "Cards tagged #TAG"), the background
#     picture (the <img> in card-content);
#   the open card: the buttons 신고 / Report and 삭제 / Delete (the latter asks window.confirm), the
#     report dialog (dialog[open]) with the reason radio #reason-advertising and its submit button;
#   profiles: block asks window.confirm;
#   the home screen: the feed tab 팔로잉 / Following;
#   the composer: its dialog (dialog[open], the one holding compose-text), its file input
#     (input[type=file], #compose-photo), the chosen background ([role=radio][aria-checked=true]),
#     the tag suggestions (the list labelled 추천 태그 / Suggested tags, its buttons).

SHOWN = """const visible = (element) => element && element.getClientRects().length > 0
  && getComputedStyle(element).visibility !== 'hidden';"""
TRANSFER_LABELS = ("다른 기기에서 옮겨 오기", "Move here from another device")
MOVE_LABELS = ("계정 옮겨 오기", "Move my account here")
SIGN_IN_AGAIN_LABELS = ("다시 로그인", "Sign in again")
FOLLOWING_TAB_LABELS = ("팔로잉", "Following")
REPORT_LABELS = ("신고", "Report")
DELETE_LABELS = ("삭제", "Delete")
SUGGESTION_LABELS = ("추천 태그", "Suggested tags")

# App bugs these tests run into (each test goes as far as it can, then reports the bug as an
# expected failure at the point it shows; once fixed, the test runs on to its end and passes).


def card_ids(browser, name):
    """The data-card-id of every displayed `card` in the list with hook `name`, in order."""
    script = SHOWN + "\nreturn [...document.querySelectorAll(arguments[0])].filter(visible).map((card) => card.dataset.cardId);"
    return browser.driver.execute_script(script, f'{hook(name)} {hook("card")}')


def list_without(browser, name, present, gone, why):
    """Waits until the list `name` shows card `present` (so its first page is in: cards come a
    page at a time), then checks that card `gone` is not in it."""
    ids = browser.until(lambda _: (lambda ids: ids if present in ids else None)(card_ids(browser, name)),
                        lambda: f"card {present} never showed in {hook(name)} (it shows {card_ids(browser, name)})",
                        START_TIMEOUT)
    assert gone not in ids, f"card {gone} is still in {hook(name)}, though {why}"


def text_shown(browser, name, expected, timeout=None):
    """Waits until a displayed element with hook `name` says exactly `expected`."""
    return browser.until(lambda _: next((e for e in browser.find_all(name) if e.is_displayed() and text_of(e) == expected), None),
                         lambda: f"no visible {hook(name)} saying {expected!r} (they say {[text_of(e) for e in browser.find_all(name)]})",
                         timeout)


def by_text(browser, tag, labels, within=None, timeout=None):
    """The first displayed `tag` element whose text or aria-label is one of `labels`."""
    def find(driver):
        for label in labels:
            xpath = f".//{tag}[normalize-space(.)='{label}' or @aria-label='{label}']"
            for element in (within or driver).find_elements(By.XPATH, xpath if within else xpath[1:]):
                if element.is_displayed():
                    return element
        return None
    return browser.until(find, f"no visible <{tag}> labelled {' / '.join(labels)}", timeout)


def open_dialog(browser, holding=None):
    """The open modal dialog (the one holding the hook `holding`, if given)."""
    def find(driver):
        for dialog in driver.find_elements(By.CSS_SELECTOR, "dialog[open]"):
            if dialog.is_displayed() and (holding is None or browser.find_all(holding, dialog)):
                return dialog
        return None
    return browser.until(find, f"no open dialog{f' holding {hook(holding)}' if holding else ''}")


def accept_confirm(browser, after_what):
    """Accepts the browser's confirmation (window.confirm); returns its words."""
    def alert(driver):
        try:
            return driver.switch_to.alert
        except NoAlertPresentException:
            return None
    box = browser.until(alert, f"no confirmation asked after {after_what}")
    words = box.text
    box.accept()
    return words


def screen(browser, timeout=START_TIMEOUT):
    """What a (re)loaded page settles on: 'start' (the start screen) or 'signed-in' (the
    navigation of a signed-in person)."""
    script = SHOWN + """
        if (visible(document.querySelector(arguments[0]))) return 'start';
        return visible(document.querySelector(arguments[1])) ? 'signed-in' : null;"""
    return browser.until(lambda d: d.execute_script(script, hook("start"), hook("nav-home")),
                         "neither the start screen nor the signed-in navigation is shown", timeout)


def open_settings(browser):
    browser.click("nav-me")
    browser.click("account-link")
    browser.visible("sign-out")


def open_author(browser, card, nickname):
    """Opens the profile of a card's author by the author link (named by their nickname); waits
    for their nickname on the profile."""
    link = browser.until(lambda _: next((a for a in card.find_elements(By.TAG_NAME, "a") if a.accessible_name.strip() == nickname), None),
                         lambda: f"no link named {nickname!r} in the card: {[a.accessible_name for a in card.find_elements(By.TAG_NAME, 'a')]}")
    browser.click(link)
    text_shown(browser, "profile-nickname", nickname)


def png(width, height):
    """A small valid PNG (RGB, a gradient), made with the standard library only."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + bytes(value for x in range(width) for value in (x * 255 // width, y * 255 // height, 170))
                    for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def active(browser):
    """A short description of the focused element, for failure messages."""
    return browser.driver.execute_script("""
        const e = document.activeElement;
        if (!e) return 'nothing';
        return `<${e.tagName.toLowerCase()}${e.dataset.test ? ` data-test=${e.dataset.test}` : ''}${e.id ? ` id=${e.id}` : ''}> `
          + (e.getAttribute('aria-label') || e.textContent || '').trim().slice(0, 30);""")


def tab_to(browser, name, backwards=False, limit=60):
    """Presses Tab (Shift+Tab when `backwards`), as a person at a keyboard does, until the
    element with hook `name` has the focus; returns it."""
    path = []
    for _ in range(limit):
        if browser.driver.execute_script("return !!document.activeElement && document.activeElement.matches(arguments[0])", hook(name)):
            return browser.driver.switch_to.active_element
        keys = ActionChains(browser.driver)
        if backwards:
            keys.key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT)
        else:
            keys.send_keys(Keys.TAB)
        keys.perform()
        path.append(active(browser))
    raise AssertionError(f"[{browser.name}] {hook(name)} not reached with {limit} × {'Shift+' if backwards else ''}Tab; "
                         f"the focus went: {' → '.join(path[:25])}")


def press(browser, *keys):
    ActionChains(browser.driver).send_keys(*keys).perform()


def viewport(browser, width, height, mobile):
    browser.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                   {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})


def horizontal_overflow(browser, where):
    """None when the page does not scroll sideways; else what sticks out (for the report)."""
    found = browser.driver.execute_script("""
        const root = document.documentElement;
        if (root.scrollWidth <= root.clientWidth) return null;
        const wide = [...document.body.querySelectorAll('*')].filter((e) => e.getBoundingClientRect().right > root.clientWidth + 0.5)
          .slice(0, 6).map((e) => `<${e.tagName.toLowerCase()} class="${e.className}"> right edge ${Math.round(e.getBoundingClientRect().right)}`);
        return `scrollWidth ${root.scrollWidth} > clientWidth ${root.clientWidth}; sticking out: ${wide.join('; ')}`;""")
    return f"{where}: {found}" if found else None


# Installed before any page script runs (DevTools, so the page's CSP does not apply): notes each
# feed request the page makes, and whether it carries a session, in sessionStorage (it outlives a
# reload; the DevTools network log loses a request whose page is unloading).
FEED_FETCH_RECORDER = """
(() => {
  const original = window.fetch;
  window.fetch = function (input, init) {
    try {
      const url = String(input instanceof Request ? input.url : input);
      if (url.includes('/v1/feeds/')) {
        const headers = new Headers((init && init.headers) || (input instanceof Request ? input.headers : undefined));
        const seen = JSON.parse(sessionStorage.getItem('soomTestFeedFetches') || '[]');
        seen.push([url, headers.has('Authorization')]);
        sessionStorage.setItem('soomTestFeedFetches', JSON.stringify(seen));
      }
    } catch (error) {
      // Only a record for the test: the request itself goes on.
    }
    return original.apply(this, arguments);
  };
})();
"""


def record_feed_requests(browser):
    browser.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FEED_FETCH_RECORDER})


def feed_requests(browser):
    """(url, whether it carried a session) of every feed request since record_feed_requests."""
    return [tuple(entry) for entry in
            json.loads(browser.driver.execute_script("return sessionStorage.getItem('soomTestFeedFetches') || '[]'"))]


def no_sessionless_feed_and_no_console_errors(browser):
    """For a browser that signs out or withdraws (left out of test_no_console_errors; it must
    have called record_feed_requests): no console error, and no feed request without a session
    (signing out must take the signed-in screens down, not leave them fetching)."""
    requests = feed_requests(browser)
    assert any(session for _, session in requests), f"no feed request with a session was recorded: {requests}"
    errors = [e.get("message") or "" for e in browser.severe()]
    assert not errors, "console errors:\n" + "\n".join(errors)
    sessionless = [url for url, session in requests if not session]
    assert not sessionless, f"feed requests sent without a session after signing out: {', '.join(sessionless)}"


def test_move_to_a_new_device(browsers):
    # The old device signs in with a key the server no longer knows: a 404 in its console.
    old, new = browsers("old-device", expect_errors=True), browsers("new-device")
    with step("A starts, posts a card, reads its nickname"):
        start(old)
        card_id = post(old, unique("옮기기 전에 쓴 카드"))
        nickname = my_nickname(old)
    with step("A opens the settings and makes a transfer code"):
        old.click("account-link")
        old.click("make-transfer-code")
        code = text_of(old.until(lambda _: next((e for e in old.find_all("transfer-code") if e.is_displayed() and text_of(e)), None),
                                 f"no visible, non-empty {hook('transfer-code')}"))
    with step("B, a fresh browser on the start screen, opens 'move here from another device' and enters the code"):
        new.open("/")
        new.visible("start", timeout=START_TIMEOUT)
        new.click(by_text(new, "summary", TRANSFER_LABELS))
        field = new.until(lambda d: next((e for e in d.find_elements(By.ID, "transfer-code") if e.is_displayed()), None),
                          "no visible field #transfer-code")
        field.send_keys(code)
        new.click(new.labelled(MOVE_LABELS))
        new.visible("feed", timeout=START_TIMEOUT)
    with step("B is signed in as A: A's nickname and card on its profile"):
        assert my_nickname(new) == nickname, "the new device shows another nickname than the old one"
        new.until(lambda _: card_id in card_ids(new, "my-cards"), f"A's card {card_id} is not among B's {hook('my-cards')}",
                  START_TIMEOUT)
    with step("A, without a reload, opens its notifications: signed out, the start screen says why"):
        old.click("notifications")
        old.visible("signed-out-notice", timeout=START_TIMEOUT)
        assert old.absent("nav-home"), "the signed-in screens stay after the account moved away"
        assert not old.labelled_now(SIGN_IN_AGAIN_LABELS), "the start screen offers to sign in with a key whose account moved away"
    with step("A, after a reload, is no longer signed in: the start screen"):
        old.driver.refresh()
        assert screen(old) == "start", "the old device is still signed in after the account moved away"
        time.sleep(1)  # and stays there (no late sign-in)
        assert screen(old) == "start" and old.absent("nav-home"), "the old device signed in again"


def test_sign_out_and_sign_in_again(browsers):
    # Its console is checked here, not by test_no_console_errors.
    browser = browsers("sign-out", expect_errors=True)
    record_feed_requests(browser)
    with step("start; read my nickname and my device key"):
        start(browser)
        nickname = my_nickname(browser)
        key = export_attempts(browser).get("publicKey")
    with step("settings → sign out: the start screen, offering to sign in again"):
        open_settings(browser)
        browser.click("sign-out")
        browser.visible("start", timeout=START_TIMEOUT)
        assert browser.absent("nav-home")
        browser.labelled(SIGN_IN_AGAIN_LABELS)
    with step("a reload stays signed out, still offering to sign in again"):
        browser.driver.refresh()
        assert screen(browser) == "start", "a reload after signing out signed in again by itself"
        again = browser.labelled(SIGN_IN_AGAIN_LABELS)
    with step("with a key stored, start asks first (the old account would be lost); cancelling keeps the key"):
        browser.click("start")
        browser.visible("start-confirm")
        confirm = browser.find_all("start-confirm")[0]
        warning = browser.driver.execute_script(
            "return arguments[0].closest('[role=alertdialog]')?.textContent || ''", confirm)
        assert "다시 들어갈 수 없어요" in warning or "never be reached again" in warning, \
            f"the confirmation does not say the old account is lost: {warning!r}"
        browser.click(browser.labelled(("취소", "Cancel")))
        assert browser.absent("start-confirm"), "cancelling leaves the confirmation open"
        assert export_attempts(browser).get("publicKey") == key, "pressing start (unconfirmed) changed the device key"
        again = browser.labelled(SIGN_IN_AGAIN_LABELS)
    with step("the key stayed; 다시 로그인 brings the same account back"):
        assert export_attempts(browser).get("publicKey") == key, "signing out changed or removed the device key"
        browser.click(again)
        browser.visible("feed", timeout=START_TIMEOUT)
        assert my_nickname(browser) == nickname, "signed in again as another account"
    with step("no console errors"):
        no_sessionless_feed_and_no_console_errors(browser)


def test_withdraw(browsers):
    # The other browser reloads a card that no longer exists: a 404 in its console. The leaver's
    # console is checked here, not by test_no_console_errors.
    leaver, other = browsers("leaver", expect_errors=True), browsers("stays", expect_errors=True)
    record_feed_requests(leaver)
    with step("A starts and posts; B starts, posts, and opens A's card"):
        start(leaver)
        card_id = post(leaver, unique("곧 사라질 카드"))
        start(other)
        anchor = post(other, unique("남아 있을 카드"))
        open_card(other, feed_card(other, card_id))
    with step("A: settings → withdraw asks a second time; cancel keeps the account"):
        open_settings(leaver)
        leaver.type_into("withdraw-reason", "테스트로 탈퇴해요")
        leaver.click("withdraw")
        leaver.visible("withdraw-confirm")
        assert leaver.absent("withdraw"), f"{hook('withdraw')} is still shown next to {hook('withdraw-confirm')}"
        leaver.click("withdraw-cancel")
        leaver.visible("withdraw")
        assert leaver.absent("withdraw-confirm"), f"{hook('withdraw-confirm')} still shown after cancelling"
    with step("A: withdraw → confirm: the start screen, confirming that the account is gone"):
        leaver.click("withdraw")
        leaver.click("withdraw-confirm")
        leaver.visible("start", timeout=START_TIMEOUT)
        assert leaver.absent("nav-home")
        notice = text_of(leaver.visible("withdrawn-notice"))
        assert "탈퇴했어요" in notice or "You have withdrawn" in notice, f"the start screen does not confirm the withdrawal: {notice!r}"
        assert not [e for e in leaver.driver.find_elements(By.XPATH, "//button") if text_of(e) in SIGN_IN_AGAIN_LABELS
                    and e.is_displayed()], "after withdrawing the start screen offers to sign in again"
    with step("B: A's card is gone (its open detail after a reload, and the feed)"):
        other.driver.refresh()
        detail = other.visible("card-detail", timeout=START_TIMEOUT)
        other.until(lambda _: next((e for e in other.find_all("error", detail) if e.is_displayed()), None),
                    f"the withdrawn account's card, reloaded, shows no {hook('error')}")
        assert not other.driver.find_elements(By.CSS_SELECTOR, f'{hook("card-detail")} {hook("card")}[data-card-id="{card_id}"]'), \
            "the withdrawn account's card is still shown"
        other.click("nav-home")
        list_without(other, "feed", anchor, card_id, "its author withdrew")
    with step("no console errors in the leaver's browser"):
        no_sessionless_feed_and_no_console_errors(leaver)


def test_follow_then_block_from_a_profile(browsers):
    author, reader = browsers("followed"), browsers("follower")
    with step("A starts and posts; B starts and posts"):
        start(author)
        card_id = post(author, unique("팔로우해 줄래요?"))
        nickname = my_nickname(author)
        start(reader)
        anchor = post(reader, unique("팔로우하는 사람의 카드"))
    with step("B opens A's profile from the card's author link and follows"):
        open_author(reader, feed_card(reader, card_id), nickname)
        reader.click("follow")
        reader.until(lambda _: reader.visible("follow").get_attribute("data-following") == "true",
                     f"{hook('follow')} does not turn to following")
    with step("B's following feed (팔로잉 tab) shows A's card"):
        reader.click("nav-home")
        reader.visible("feed")
        reader.click(reader.labelled(FOLLOWING_TAB_LABELS))
        reader.until(lambda _: card_id in card_ids(reader, "feed-following"),
                     lambda: f"A's card {card_id} is not in {hook('feed-following')}: {card_ids(reader, 'feed-following')}",
                     START_TIMEOUT)
    with step("B blocks A from A's profile (confirming)"):
        open_author(reader, reader.until(lambda d: next((c for c in d.find_elements(
            By.CSS_SELECTOR, f'{hook("feed-following")} {hook("card")}[data-card-id="{card_id}"]') if c.is_displayed()), None),
            f"A's card left {hook('feed-following')}"), nickname)
        reader.click("block")
        accept_confirm(reader, f"pressing {hook('block')}")
        reader.until(lambda _: reader.visible("block").get_attribute("data-blocked") == "true",
                     f"{hook('block')} does not turn to blocked")
        reader.visible("blocked-note")
        assert reader.visible("follow").get_attribute("data-following") == "false", "blocking did not end the follow"
    with step("A's cards are gone from B's latest feed"):
        reader.click("nav-home")
        list_without(reader, "feed", anchor, card_id, "B blocked its author")


def test_report_a_card(browsers):
    # Once fixed, the reporter reloading the card gets a 404: in its console.
    author, reporter = browsers("reported"), browsers("reporter", expect_errors=True)
    with step("A starts and posts; B starts and posts"):
        start(author)
        card_id = post(author, unique("신고당할 카드"))
        start(reporter)
        anchor = post(reporter, unique("신고하는 사람의 카드"))
    with step("B opens A's card, reports it for a reason: the card leaves the screen"):
        open_card(reporter, feed_card(reporter, card_id))
        reporter.click(reporter.labelled(REPORT_LABELS))
        dialog = open_dialog(reporter)
        reason = dialog.find_element(By.ID, "reason-advertising")
        reporter.click(reason)
        assert reason.is_selected(), "the reason could not be chosen"
        reporter.click(dialog.find_element(By.CSS_SELECTOR, 'button[type="submit"]'))
        reporter.until(lambda d: not [e for e in d.find_elements(By.CSS_SELECTOR, "dialog[open]") if e.is_displayed()],
                       "the report dialog stays open")
        assert not reporter.driver.find_elements(By.CSS_SELECTOR, f'{hook("card-detail")} {hook("card")}[data-card-id="{card_id}"]'), \
            "the reported card is still shown to the reporter"
    with step("A still sees the card"):
        author.driver.refresh()
        after_load(author, "feed")
        feed_card(author, card_id)
    with step("for B the card is gone: from the latest feed, and its detail after a reload"):
        problems = []
        reporter.click("nav-home")
        try:
            list_without(reporter, "feed", anchor, card_id, "B reported it")
        except AssertionError as error:
            problems.append(str(error))
        reporter.driver.back()
        reporter.driver.refresh()
        detail = reporter.visible("card-detail", timeout=START_TIMEOUT)
        shown = reporter.until(lambda d: "card" if d.find_elements(By.CSS_SELECTOR, f'{hook("card-detail")} {hook("card")}[data-card-id="{card_id}"]')
                               else "error" if [e for e in reporter.find_all("error", detail) if e.is_displayed()] else None,
                               "the reported card's detail, reloaded, shows neither the card nor an error", START_TIMEOUT)
        if shown == "card":
            problems.append(f"the reported card's detail, reloaded, still shows the card (expected {hook('error')}: not found)")
        assert not problems, "; ".join(p.splitlines()[0] for p in problems)


def test_delete_my_card(browsers):
    browser = browsers("deleter")
    with step("start; post two cards"):
        start(browser)
        keep = post(browser, unique("남겨 둘 카드"))
        doomed = post(browser, unique("지울 카드"))
    with step("open the second, delete it (confirming): back on the feed, without it"):
        open_card(browser, feed_card(browser, doomed))
        browser.click(browser.labelled(DELETE_LABELS))
        accept_confirm(browser, "pressing 삭제 / Delete")
        list_without(browser, "feed", keep, doomed, "it was deleted")
    with step("it is gone from my cards too"):
        browser.click("nav-me")
        list_without(browser, "my-cards", keep, doomed, "it was deleted")


def test_compose_with_a_photo(browsers, tmp_path):
    width, height = 64, 48
    photo = tmp_path / "photo.png"
    photo.write_bytes(png(width, height))
    browser = browsers("photographer")
    text = unique("내가 찍은 사진 위에 쓴 카드")
    with step("start; open the composer; choose a photo in its file input"):
        start(browser)
        browser.click("compose")
        dialog = open_dialog(browser, holding="compose-text")
        files = dialog.find_elements(By.CSS_SELECTOR, 'input[type="file"]')
        assert files, "the composer has no file input"
        files[0].send_keys(str(photo))
    with step("the uploaded photo becomes the chosen background"):
        chosen = """const chosen = arguments[0].querySelector('[role=radio][aria-checked=true] img');
                    return chosen ? new URL(chosen.src).pathname : null;"""
        browser.until(lambda d: re.fullmatch(r"/v1/images/(?!defaults/)[^/]+", d.execute_script(chosen, dialog) or ""),
                      lambda: f"the chosen background is {browser.driver.execute_script(chosen, dialog)!r}, not the upload")
    with step("the upload has a row of its own (issue 43: it landed among the paper backgrounds)"):
        rows = browser.driver.execute_script("""
            const chosen = arguments[0].querySelector('[role=radio][aria-checked=true]');
            const row = chosen.closest('[data-test=background-group]');
            return row && {category: row.dataset.category,
                           builtIn: [...row.querySelectorAll('img')].filter((i) => i.src.includes('/defaults/')).length};""", dialog)
        assert rows, f"the uploaded swatch is in no {hook('background-group')}"
        assert rows["category"] == "upload" and rows["builtIn"] == 0, \
            f"the uploaded swatch shares a row with built-in backgrounds: {rows}"
    with step("post: the card on top of the feed shows the photo, loaded"):
        browser.type_into("compose-text", text)
        browser.click("compose-submit")
        card = wait_top_card(browser, text)
        images = browser.find_all("card-content", card)[0].find_elements(By.TAG_NAME, "img")
        assert images, "the card shows no background image"
        source = images[0].get_attribute("src")
        assert source.startswith(BASE + "/v1/images/") and "/v1/images/defaults/" not in source, \
            f"the card's background is {source!r}, not an uploaded image under /v1/images/"
        loaded = browser.until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", images[0]),
                               f"the card's background {source} does not load")
        assert loaded == width, f"the uploaded {width}×{height} photo comes back {loaded} pixels wide"


def test_tags_favourite_and_suggestions(browsers):
    browser = browsers("tagger")
    tag = "tg" + uuid.uuid4().hex[:8]
    with step("start; post a card with a new tag"):
        start(browser)
        card_id = post(browser, unique("태그를 단 카드"), f"#{tag}")
    with step("the card's tag link opens the tag's screen, listing the card"):
        card = feed_card(browser, card_id)
        browser.click(by_text(browser, "a", (f"#{tag} 태그 보기", f"Cards tagged #{tag}"), within=card))
        text_shown(browser, "tag-name", f"#{tag}")
        browser.until(lambda _: card_id in card_ids(browser, "tag-feed"), f"the card is not in {hook('tag-feed')}")
    with step("favourite: on, listed on the tags screen, off again"):
        assert browser.visible("favorite").get_attribute("aria-pressed") == "false", "a new tag is already a favourite"
        browser.click("favorite")
        browser.until(lambda _: browser.visible("favorite").get_attribute("aria-pressed") == "true", f"{hook('favorite')} does not turn on")
        browser.click("nav-tags")
        browser.until(lambda _: any(f"#{tag}" in text_of(e) for e in browser.find_all("favorite-tags") if e.is_displayed()),
                      f"#{tag} is not in {hook('favorite-tags')}")
        browser.driver.back()
        text_shown(browser, "tag-name", f"#{tag}")
        browser.until(lambda _: browser.visible("favorite").get_attribute("aria-pressed") == "true",
                      f"{hook('favorite')} is off when the tag's screen is opened again")
        browser.click("favorite")
        browser.until(lambda _: browser.visible("favorite").get_attribute("aria-pressed") == "false", f"{hook('favorite')} does not turn off")
    with step("the tags screen's search suggests the tag while typing"):
        browser.click("nav-tags")
        browser.type_into("tag-search", tag[:6])
        browser.until(lambda _: any(f"#{tag}" in text_of(e) for e in browser.find_all("tag-suggestions") if e.is_displayed()),
                      f"#{tag} is not suggested in {hook('tag-suggestions')}")
    with step("the composer's tag field suggests the tag while typing; picking it fills the field"):
        text = unique("추천 태그로 쓴 카드")
        browser.click("compose")
        dialog = open_dialog(browser, holding="compose-text")
        browser.type_into("compose-text", text, within=dialog)
        field = browser.type_into("compose-tags", tag[:6], within=dialog)
        suggestions = by_text(browser, "ul", SUGGESTION_LABELS, within=dialog)
        suggestion = browser.until(lambda _: next((b for b in suggestions.find_elements(By.TAG_NAME, "button")
                                                   if text_of(b).startswith(f"#{tag}") and b.is_displayed()), None),
                                   f"#{tag} is not suggested under {hook('compose-tags')}")
        browser.click(suggestion)
        browser.until(lambda _: tag in field.get_attribute("value").split(), lambda: f"{hook('compose-tags')} holds "
                      f"{field.get_attribute('value')!r} after picking the suggestion")
        browser.click("compose-submit", within=dialog)
        card = wait_top_card(browser, text)
        assert f"#{tag}" in text_of(card), "the card posted with the suggested tag does not show it"


def test_language_switch(browsers):
    browser = browsers("language")
    start(browser)
    text_shown(browser, "nav-tags", "태그")
    with step("settings → English: the navigation says Tags, and keeps English after a reload"):
        open_settings(browser)
        browser.click("language-en")
        text_shown(browser, "nav-tags", "Tags")
        assert browser.driver.execute_script("return document.documentElement.lang") == "en"
        browser.driver.refresh()
        after_load(browser, "language-ko")
        text_shown(browser, "nav-tags", "Tags")
        shown = glitches(browser, "the English settings")
        assert not shown, "shown to people:\n" + "\n".join(shown)
    with step("back to 한국어: the navigation says 태그"):
        browser.click("language-ko")
        text_shown(browser, "nav-tags", "태그")
        assert browser.driver.execute_script("return document.documentElement.lang") == "ko"


def test_keyboard(browsers):
    browser = browsers("keyboard")
    text = unique("키보드로만 쓴 카드")
    with step("the start screen: Tab to the start button, Enter"):
        browser.open("/")
        browser.visible("start", timeout=START_TIMEOUT)
        browser.driver.execute_script("document.activeElement && document.activeElement.blur()")
        tab_to(browser, "start")
        assert browser.driver.execute_script("return document.activeElement.matches(':focus-visible')"), \
            f"{hook('start')} has the keyboard focus but does not show it (:focus-visible)"
        press(browser, Keys.ENTER)
        browser.visible("feed", timeout=START_TIMEOUT)
    with step("Shift+Tab to compose, Enter: the composer opens with the focus in its text"):
        tab_to(browser, "compose", backwards=True)
        press(browser, Keys.ENTER)
        open_dialog(browser, holding="compose-text")
        browser.until(lambda d: d.execute_script("return document.activeElement.matches(arguments[0])", hook("compose-text")),
                      lambda: f"the focus is on {active(browser)}, not in {hook('compose-text')}")
    with step("type, Tab to the submit button, Enter: the card tops the feed"):
        press(browser, text)
        tab_to(browser, "compose-submit")
        press(browser, Keys.ENTER)
        wait_top_card(browser, text)
        browser.until(lambda d: not [e for e in d.find_elements(By.CSS_SELECTOR, "dialog[open]") if e.is_displayed()],
                      "the composer stays open after posting")


def test_narrow_and_wide_screens(browsers):
    browser = browsers("sizes")
    viewport(browser, 360, 740, mobile=True)
    problems = []
    with step("360 px wide: start, post a card with a long word and tags; the feed does not scroll sideways"):
        start(browser)
        text = "가나다" + "아" * 60 + "abcdefghijklmnopqrstuvwxyz0123456789" * 2 + " " + unique("좁은 화면")
        card_id = post(browser, text, "아주아주긴태그이름이에요 narrow_screen 하늘")
        width = browser.driver.execute_script("return document.documentElement.clientWidth")
        assert width <= 360, f"the page is {width} px wide, not 360"
        problems.append(horizontal_overflow(browser, "the feed at 360 px"))
    with step("360 px wide: the open card and my profile"):
        open_card(browser, feed_card(browser, card_id))
        detail_card(browser, card_id)
        problems.append(horizontal_overflow(browser, "the open card at 360 px"))
        my_nickname(browser)
        problems.append(horizontal_overflow(browser, "my profile at 360 px"))
    with step("1280 px wide: the feed is visible"):
        viewport(browser, 1280, 900, mobile=False)
        browser.click("nav-home")
        feed = browser.visible("feed")
        card = feed_card(browser, card_id)
        box = browser.driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.width, innerWidth]", card)
        assert box[1] > 200 and box[0] >= 0 and box[0] + box[1] <= box[2], f"the card's box at 1280 px: left, width, window {box}"
        assert feed.is_displayed()
        problems.append(horizontal_overflow(browser, "the feed at 1280 px"))
    problems = [p for p in problems if p]
    assert not problems, "the page scrolls sideways:\n" + "\n".join(problems)


def test_back_to_the_feed_fetches_nothing_again(browsers):
    browser = browsers("back-to-feed")
    record_feed_requests(browser)
    with step("start; post three cards, so the feed scrolls"):
        start(browser)
        for number in range(3):
            post(browser, unique(f"돌아와도 그대로인 카드 {number}"))
    with step("scroll to the third card and open it"):
        card = feed_cards(browser)[2]
        browser.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", card)
        card_id = card.get_attribute("data-card-id")
        before = len(feed_requests(browser))
        scrolled = browser.driver.execute_script("return window.scrollY")
        assert scrolled > 0, "the feed does not scroll"
        # Clicked by script: Selenium's own click may scroll the page first.
        browser.driver.execute_script("arguments[0].click()", browser.find_all("card-content", card)[0])
        detail_card(browser, card_id)
    with step("back: the same feed at the same place, with no feed page fetched again"):
        browser.driver.back()
        feed_card(browser, card_id)
        time.sleep(1)
        requests = feed_requests(browser)
        assert len(requests) == before, f"going back fetched the feed again: {[url for url, _ in requests[before:]]}"
        now = browser.driver.execute_script("return window.scrollY")
        assert abs(now - scrolled) <= 4, f"going back lost the scroll position ({scrolled} px before, {now} px after)"
    with step("a card posted now still tops the feed"):
        text = unique("돌아온 뒤에 쓴 카드")
        post(browser, text)


# Installed before any page script runs (DevTools, so the page's CSP does not apply): fakes an
# expired session (401 for tokens listed as expired) and a server that cannot be reached for
# signing in, and counts sign-ins (POST /v1/sessions). Steered through sessionStorage.
SESSION_FAULTS = """
(() => {
  const original = window.fetch;
  const read = (key, fallback) => JSON.parse(sessionStorage.getItem(key) || fallback);
  const write = (key, value) => sessionStorage.setItem(key, JSON.stringify(value));
  window.fetch = function (input, init) {
    try {
      const url = String(input instanceof Request ? input.url : input);
      const method = String((init && init.method) || 'GET').toUpperCase();
      const auth = new Headers((init && init.headers) || undefined).get('Authorization');
      const fault = read('soomTestFault', '{}');
      const signingIn = method === 'POST' && (url.endsWith('/v1/sessions') || url.endsWith('/v1/auth/challenges'));
      if (method === 'POST' && url.endsWith('/v1/sessions')) write('soomTestSignIns', read('soomTestSignIns', '0') + 1);
      if (signingIn && fault.offline) return Promise.reject(new TypeError('Failed to fetch'));
      if (fault.failNext && url.includes(fault.failNext)) {
        fault.failNext = null;
        write('soomTestFault', fault);
        return Promise.reject(new TypeError('Failed to fetch'));
      }
      if (auth && fault.expireNext) {
        fault.expired = [...(fault.expired || []), auth];
        fault.expireNext = false;
        write('soomTestFault', fault);
      }
      if (auth && (fault.expired || []).includes(auth)) {
        return Promise.resolve(new Response('{"error":{"code":"unauthorized","message":"expired"}}',
          { status: 401, headers: { 'Content-Type': 'application/json' } }));
      }
    } catch (error) {
      // Only a fault for the test: the request itself goes on.
    }
    return original.apply(this, arguments);
  };
})();
"""


def session_fault(browser, **fault):
    browser.driver.execute_script("sessionStorage.setItem('soomTestFault', JSON.stringify(arguments[0]))", fault)


def sign_ins(browser):
    return browser.driver.execute_script("return JSON.parse(sessionStorage.getItem('soomTestSignIns') || '0')")


def test_session_renewal(browsers):
    # The faked failures put errors in its console on purpose.
    browser = browsers("renewal", expect_errors=True)
    browser.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SESSION_FAULTS})
    with step("start; post a card"):
        start(browser)
        card_id = post(browser, unique("세션이 끊겨도 남는 카드"))
        card = feed_card(browser, card_id)
        likes = like_count(browser, card)
    with step("the session expires while the server cannot be reached: liking shows an error"):
        before = shown_errors(browser)
        session_fault(browser, expireNext=True, offline=True)
        browser.click(browser.find_all("like", card)[0])
        new_error(browser, before, "liking while the session could not be renewed")
        assert like_count(browser, card) == likes
    with step("the server is back: the next like renews the session and counts (the session was kept)"):
        expired = browser.driver.execute_script("return JSON.parse(sessionStorage.getItem('soomTestFault')).expired")
        session_fault(browser, expired=expired)
        toggle_like(browser, card, likes + 1)
    with step("two calls meeting an expired session at once share one renewal"):
        signed = sign_ins(browser)
        session_fault(browser, expired=expired, expireNext=True)
        before = shown_errors(browser)
        browser.click("notifications")  # the list and the unread count, together
        browser.until(lambda _: browser.find_all("notification-list"), f"no {hook('notification-list')} after opening the notifications")
        browser.until(lambda _: sign_ins(browser) > signed, "the expired session was not renewed")
        time.sleep(1)
        assert sign_ins(browser) == signed + 1, f"{sign_ins(browser) - signed} sign-ins for one expired session"
        fresh = [text_of(e) for e in browser.find_all("error") if e.id not in before and e.is_displayed()]
        assert not fresh, f"an error is shown after renewing: {fresh}"
    with step("a feed page that cannot be loaded says so, with a retry that loads it"):
        session_fault(browser, failNext="/v1/feeds/popular")
        browser.click("nav-home")
        browser.click(browser.labelled(("인기", "Popular")))
        retry = browser.visible("retry")
        assert [e for e in browser.find_all("error") if e.is_displayed()], f"no {hook('error')} next to {hook('retry')}"
        browser.click(retry)
        browser.until(lambda _: browser.absent("retry"), f"{hook('retry')} stays after retrying")
        shown = [text_of(e) for e in browser.find_all("error") if e.is_displayed() and e.id not in before]
        assert not shown, f"retrying the page still shows {shown}"



# --- Issue 43: what a demanding user noticed, at a phone's and a desktop's size -----------------

EXTRA_SCREENS = os.path.join(REPORT_DIR, "screens")  # for the engineer to look at, not the README


def screen_shot(browser, name, scroll_to=None):
    os.makedirs(EXTRA_SCREENS, exist_ok=True)
    path = os.path.join(EXTRA_SCREENS, f"{name}.png")
    snapshot(browser, path, scroll_to=scroll_to)
    return path


def use_english(browser):
    open_settings(browser)
    browser.click("language-en")
    text_shown(browser, "nav-tags", "Tags")


def read_png(data):
    """(width, height, rows) of an 8-bit RGB(A) PNG (Chromium's screenshots), rows[y][x] = (r, g, b);
    the standard library only."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, compressed = 8, b""
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        position += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and not interlace, f"unexpected PNG: depth {depth}, colour type {colour}"
        elif kind == b"IDAT":
            compressed += body
    size = 3 if colour == 2 else 4
    raw = zlib.decompress(compressed)
    stride = width * size
    previous = bytearray(stride)
    rows = []
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(size, stride):
                line[i] = (line[i] + line[i - size]) & 255
        elif kind == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, previous))
        elif kind == 3:
            for i in range(stride):
                line[i] = (line[i] + (((line[i - size] if i >= size else 0) + previous[i]) >> 1)) & 255
        elif kind == 4:
            for i in range(stride):
                a, b = (line[i - size] if i >= size else 0), previous[i]
                c = previous[i - size] if i >= size else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, size)])
        previous = line
    return width, height, rows


def relative_luminance(rgb):
    """WCAG 2 relative luminance of an sRGB colour (0–255 channels)."""
    def linear(value):
        value /= 255
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4
    red, green, blue = (linear(v) for v in rgb)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(first, second):
    high, low = sorted((relative_luminance(first), relative_luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def capture(browser, box):
    """The rendered pixels of `box` (CSS px from the viewport's corner; the page at 1 device pixel
    per CSS px), as read_png gives them."""
    clip = {"x": box["x"] + box["scrollX"], "y": box["y"] + box["scrollY"], "width": box["width"], "height": box["height"], "scale": 1}
    shot = browser.driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "clip": clip})
    width, height, rows = read_png(base64.b64decode(shot["data"]))
    assert abs(width - round(box["width"])) <= 1 and abs(height - round(box["height"])) <= 1, \
        f"a {box['width']:.0f}×{box['height']:.0f} clip came back {width}×{height}: not 1 pixel per CSS px"
    return rows


# Where a card's text and picture are: the card-content box, the text's line boxes (relative to
# it), the text's colour, and the picture alone as the card shows it (object-fit: cover, centred),
# drawn by the page into a canvas, averaged over four patches near the corners.
CARD_GEOMETRY = """
const content = arguments[0].querySelector('[data-test=card-content]');
const text = content.querySelector('[data-test=card-text]');
const image = content.querySelector('img');
if (!image || !image.complete || !image.naturalWidth) return null;
const box = content.getBoundingClientRect();
const range = document.createRange();
range.selectNodeContents(text);
const lines = [...range.getClientRects()].filter((r) => r.width > 1 && r.height > 1)
  .map((r) => [r.left - box.left, r.top - box.top, r.width, r.height]);
const canvas = document.createElement('canvas');
canvas.width = Math.round(box.width);
canvas.height = Math.round(box.height);
const context = canvas.getContext('2d');
const scale = Math.max(box.width / image.naturalWidth, box.height / image.naturalHeight);
const [w, h] = [image.naturalWidth * scale, image.naturalHeight * scale];
context.drawImage(image, (box.width - w) / 2, (box.height - h) / 2, w, h);
const side = 10;
const patches = [[0.05, 0.05], [0.95, 0.05], [0.05, 0.95], [0.95, 0.95]].map(([fx, fy]) => {
  const x = Math.round(fx * box.width - side / 2), y = Math.round(fy * box.height - side / 2);
  const data = context.getImageData(x, y, side, side).data;
  const sum = [0, 0, 0];
  for (let i = 0; i < data.length; i += 4) for (let c = 0; c < 3; c++) sum[c] += data[i + c];
  return [x, y, sum.map((v) => v / (side * side))];
});
return {box: {x: box.left, y: box.top, width: box.width, height: box.height, scrollX, scrollY},
        lines, color: getComputedStyle(text).color, patches, source: image.src};"""

HIDE_TEXT = """
const text = arguments[0].querySelector('[data-test=card-text]');
if (arguments[1]) { text.style.setProperty('color', 'transparent', 'important'); text.style.setProperty('text-shadow', 'none', 'important'); }
else { text.style.removeProperty('color'); text.style.removeProperty('text-shadow'); }"""


def measure_card(browser, card):
    """Contrast of a card's text against what is rendered right behind it, and how much the
    picture away from the text is changed. The honest part: the card is captured twice, with its
    text and with the text (and its shadow) made transparent; the background is read from the
    second capture inside the text's line boxes (2 px around them too), so any veil or gradient
    the app puts behind the text counts, the text's own shadow does not."""
    browser.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", card)
    geometry = browser.until(lambda d: d.execute_script(CARD_GEOMETRY, card), "the card's picture does not load")
    time.sleep(0.2)  # the ink chosen once the picture is read, then painted
    geometry = browser.driver.execute_script(CARD_GEOMETRY, card)
    ink = tuple(int(v) for v in re.findall(r"[\d.]+", geometry["color"])[:3])
    shown = capture(browser, geometry["box"])
    browser.driver.execute_script(HIDE_TEXT, card, True)
    try:
        behind = capture(browser, geometry["box"])
    finally:
        browser.driver.execute_script(HIDE_TEXT, card, False)
    ratios, drawn = [], 0
    height, width = len(behind), len(behind[0])
    for left, top, w, h in geometry["lines"]:
        for y in range(max(0, int(top) - 2), min(height, int(top + h) + 3)):
            for x in range(max(0, int(left) - 2), min(width, int(left + w) + 3)):
                ratios.append(contrast(ink, behind[y][x]))
                drawn += max(abs(a - b) for a, b in zip(shown[y][x], behind[y][x])) > 48
    assert ratios and drawn > 50, f"no text found on the card (line boxes {geometry['lines']}, {drawn} pixels changed by the text)"
    ratios.sort()
    changes = [max(abs(a - b) for a, b in zip(colour, (sum(behind[y + dy][x + dx][c] for dy in range(10) for dx in range(10)) / 100 for c in range(3))))
               for x, y, colour in geometry["patches"]]
    return {"worst": ratios[len(ratios) // 100], "min": ratios[0], "ink": ink, "picture_change": max(changes)}


def test_card_text_contrast_on_every_built_in_background(browsers):
    """Issue 43: a 58 % black scrim greyed every picture. Now the text must keep 4.5:1 against the
    pixels rendered behind it (worst 1 % of them), on every built-in background, at a phone's and
    a desktop's size, while the picture away from the text stays itself."""
    browser = browsers("contrast")
    viewport(browser, WIDTH, HEIGHT, mobile=True)
    start(browser)
    with step("one card on each built-in background"):
        browser.click("compose")
        dialog = open_dialog(browser, holding="compose-text")
        names = browser.until(lambda d: d.execute_script("""return [...arguments[0].querySelectorAll(
            '[data-test=background-group]:not([data-category=upload]) [role=radio]')].map((b) => b.getAttribute('aria-label'))""", dialog),
            "the composer lists no built-in backgrounds")
        press(browser, Keys.ESCAPE)
        cards = {}
        for name in names:
            browser.click("compose")
            dialog = open_dialog(browser, holding="compose-text")
            browser.click(dialog.find_element(By.CSS_SELECTOR, f'[role=radio][aria-label="{name}"]'))
            text = f"{name}: 오늘도 숨 한 번 크게 쉬어요. Breathe {uuid.uuid4().hex[:6]}"
            browser.type_into("compose-text", text, within=dialog)
            browser.click("compose-submit", within=dialog)
            cards[name] = wait_top_card(browser, text).get_attribute("data-card-id")
    problems = []
    for size, (width, height, mobile) in (("phone", (WIDTH, HEIGHT, True)), ("desktop", (*DESKTOP, False))):
        with step(f"{size}: each card's text against what is behind it"):
            viewport(browser, width, height, mobile)
            browser.click("nav-home")
            for name, card_id in cards.items():
                found = measure_card(browser, feed_card(browser, card_id))
                measure(f"card text contrast, {size}, {name}: ink rgb{found['ink']}, worst 1 % {found['worst']:.2f}:1, "
                        f"lowest pixel {found['min']:.2f}:1; picture near the corners changed by at most {found['picture_change']:.0f}/255")
                if found["worst"] < 4.5:
                    problems.append(f"{size}, {name}: the text keeps only {found['worst']:.2f}:1 against the pixels behind it")
                if found["picture_change"] > 24:
                    problems.append(f"{size}, {name}: the picture away from the text is changed by {found['picture_change']:.0f}/255 (a scrim?)")
            screen_shot(browser, f"backgrounds-{size}")
    assert not problems, "\n".join(problems)


def tabs_clipped(browser):
    """What of the feed's tab row is cut off or scrolls (a list; empty when every tab shows whole)."""
    return browser.driver.execute_script("""
        const row = arguments[0];
        const edge = row.getBoundingClientRect();
        const found = [];
        if (row.scrollWidth > row.clientWidth + 1) found.push(`the row scrolls (${row.scrollWidth} > ${row.clientWidth})`);
        for (const tab of row.querySelectorAll('a')) {
          const box = tab.getBoundingClientRect();
          if (tab.scrollWidth > tab.clientWidth + 1 || box.right > edge.right + 0.5 || box.left < edge.left - 0.5
              || box.right > document.documentElement.clientWidth + 0.5) found.push(`"${tab.textContent}" is cut off`);
        }
        return found;""", browser.visible("feed-tabs"))


def covered(browser, name):
    """Whether something else lies over the middle of the visible element `name`."""
    return browser.driver.execute_script("""
        const element = arguments[0];
        element.scrollIntoView({block: 'center'});
        const box = element.getBoundingClientRect();
        const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        return top && !element.contains(top) ? top.outerHTML.slice(0, 120) : null;""", browser.visible(name))


def test_tabs_badge_compose_checkboxes_and_code_at_phone_and_desktop(browsers):
    browser = browsers("layouts")
    viewport(browser, 360, 740, mobile=True)
    start(browser)
    post(browser, unique("넓은 화면에서도 보기 좋은 카드"))
    post(browser, unique("두 번째 카드"))
    problems = []
    with step("a new account: no unread badge (issue 43: a grey 0 was always shown)"):
        settle(browser, len(browser.collect().network))
        assert browser.absent("unread-count"), f"{hook('unread-count')} shows {unread(browser)!r} with nothing unread"
    with step("Korean at 360 px: every feed tab shows whole"):
        problems += tabs_clipped(browser)
    with step("the composer: checkboxes in the theme's colour; the location note says the truth (about 1 km)"):
        browser.click("compose")
        dialog = open_dialog(browser, holding="compose-text")
        colours = browser.driver.execute_script("""
            const accent = getComputedStyle(arguments[0].querySelector('[data-test=compose-submit]')).backgroundColor;
            return [accent, [...arguments[0].querySelectorAll('input[type=checkbox]')].map((c) => getComputedStyle(c).accentColor)];""", dialog)
        assert colours[1] and all(c == colours[0] for c in colours[1]), \
            f"the composer's checkboxes have accent-color {colours[1]}, not the theme's {colours[0]}"
        words = text_of(dialog)
        assert "1 km" in words and "500 m" not in words, f"the composer's location note: {words[-300:]!r}"
        screen_shot(browser, "composer-phone")
        press(browser, Keys.ESCAPE)
    with step("English at 390 and 360 px: every feed tab shows whole, nothing scrolls sideways"):
        use_english(browser)
        for width in (390, 360):
            viewport(browser, width, 844, mobile=True)
            browser.click("nav-home")
            problems += [f"{width} px: {p}" for p in tabs_clipped(browser)]
            problems.append(horizontal_overflow(browser, f"the English feed at {width} px"))
        screen_shot(browser, "feed-english-phone")
    with step("compose is offered on the feed, not on settings, notifications or an open card"):
        browser.click("nav-home")
        browser.visible("compose")
        open_card(browser, feed_cards(browser)[0])
        assert browser.absent("compose"), f"{hook('compose')} floats over the open card"
        browser.click("notifications")
        browser.until(lambda _: browser.find_all("notification-list"), f"no {hook('notification-list')}")
        assert browser.absent("compose"), f"{hook('compose')} floats over the notifications"
        open_settings(browser)
        assert browser.absent("compose"), f"{hook('compose')} floats over the settings"
    with step("settings at 390 px: the withdrawal confirmation is not covered"):
        browser.click("withdraw")
        browser.visible("withdraw-confirm")
        for name in ("withdraw-confirm", "withdraw-cancel"):
            over = covered(browser, name)
            assert not over, f"{hook(name)} is covered by {over}"
        screen_shot(browser, "withdraw-confirm-phone")
        browser.click("withdraw-cancel")
    for width, height, mobile in ((360, 740, True), (*DESKTOP, False)):
        with step(f"the transfer code on one line at {width} px"):
            viewport(browser, width, height, mobile)
            browser.click("make-transfer-code")
            code = browser.until(lambda _: next((e for e in browser.find_all("transfer-code") if e.is_displayed() and text_of(e)), None),
                                 f"no visible {hook('transfer-code')}")
            lines = browser.driver.execute_script("""
                const range = document.createRange();
                range.selectNodeContents(arguments[0]);
                const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
                return [tops.size, arguments[0].scrollWidth <= arguments[0].clientWidth + 1];""", code)
            assert lines[0] == 1, f"the transfer code {text_of(code)!r} breaks over {lines[0]} lines at {width} px"
            assert lines[1], f"the transfer code {text_of(code)!r} does not fit its box at {width} px"
            screen_shot(browser, f"transfer-code-{width}", scroll_to=code)
    with step("desktop: a grid of cards, the like button above the fold, the navigation beside the content"):
        browser.click("nav-home")
        feed = browser.visible("feed")
        browser.until(lambda _: len(feed_cards(browser)) >= 2, "fewer than two cards in the feed")
        layout = browser.driver.execute_script("""
            const cards = [...arguments[0].querySelectorAll('[data-test=card]')].slice(0, 2).map((c) => c.getBoundingClientRect());
            const like = arguments[0].querySelector('[data-test=card] [data-test=like]').getBoundingClientRect();
            const nav = arguments[1].getBoundingClientRect();
            const list = arguments[0].getBoundingClientRect();
            return {sideBySide: Math.abs(cards[0].top - cards[1].top) < 2 && cards[1].left > cards[0].right,
                    likeBottom: like.bottom, height: innerHeight, navRight: nav.right, navTop: nav.top, feedLeft: list.left,
                    cardWidth: cards[0].width};""", feed, browser.visible("nav-home"))
        assert layout["sideBySide"], f"the feed's first two cards are not side by side at {DESKTOP[0]} px: {layout}"
        assert layout["likeBottom"] <= layout["height"], f"the first card's like button is below the fold: {layout}"
        assert layout["navRight"] <= layout["feedLeft"], f"the navigation is not beside the content: {layout}"
        assert not covered(browser, "compose") and not covered(browser, "nav-home")
        problems.append(horizontal_overflow(browser, "the feed at the desktop size"))
        screen_shot(browser, "feed-desktop")
        for name in ("nav-tags", "notifications", "nav-me"):
            browser.click(name)
            time.sleep(0.8)
            screen_shot(browser, f"{name}-desktop")
            problems.append(horizontal_overflow(browser, f"{name} at the desktop size"))
    problems = [p for p in problems if p]
    assert not problems, "\n".join(problems)


def test_counts_follow_plural_rules(browsers):
    """Issue 43: "1 comments". Counts read "1 comment" / "2 comments" in English (Intl.PluralRules)."""
    browser = browsers("plurals")
    tag = "pl" + uuid.uuid4().hex[:8]
    start(browser)
    card_id = post(browser, unique("댓글이 하나 달릴 카드"), f"#{tag}")
    with step("one comment on the card"):
        open_card(browser, feed_card(browser, card_id))
        comment(browser, "하나뿐인 댓글")
        wait_comment(browser, "하나뿐인 댓글")
    with step("Korean: 댓글 1"):
        browser.click("nav-home")
        text_shown(browser, "comment-count", "댓글 1")
    with step("English: 1 comment, 0 comments, and the tag's 1 card"):
        use_english(browser)
        browser.click("nav-home")
        card = feed_card(browser, card_id)
        browser.until(lambda _: text_of(browser.find_all("comment-count", card)[0]) == "1 comment",
                      lambda: f"the card says {text_of(browser.find_all('comment-count', card)[0])!r}, not '1 comment'")
        open_card(browser, card)
        reply = wait_comment(browser, "하나뿐인 댓글")
        assert text_of(browser.find_all("comment-count", reply)[0]) == "0 comments"
        browser.click(by_text(browser, "a", (f"Cards tagged #{tag}",), within=detail_card(browser, card_id)))
        text_shown(browser, "tag-usage", "1 card")


# Installed before any page script runs (DevTools: the CSP does not apply): likes' notifications
# come without an actor, as the contract says (whatever the server under test does), one more
# notification points at a card that does not exist, and every GET of one card is counted.
NOTIFICATION_FAKES = """
(() => {
  const original = window.fetch;
  window.fetch = async function (input, init) {
    const url = new URL(String(input instanceof Request ? input.url : input), location.href);
    const method = String((init && init.method) || 'GET').toUpperCase();
    if (method === 'GET' && /^\\/v1\\/cards\\/[^/]+$/.test(url.pathname)) {
      const seen = JSON.parse(sessionStorage.getItem('soomTestCardFetches') || '[]');
      seen.push(url.pathname.split('/').pop());
      sessionStorage.setItem('soomTestCardFetches', JSON.stringify(seen));
    }
    const response = await original.apply(this, arguments);
    if (method !== 'GET' || url.pathname !== '/v1/notifications' || !response.ok) return response;
    const page = await response.clone().json();
    page.items = page.items.map((n) => (n.type === 'card_liked' ? { ...n, actor: null } : n));
    const gone = sessionStorage.getItem('soomTestGoneCard');
    if (gone && !url.searchParams.has('unread') && !url.searchParams.has('cursor') && page.items.length) {
      page.items.push({ ...page.items[page.items.length - 1], id: 'gone-' + gone, type: 'card_liked', actor: null, cardId: gone, read: true });
    }
    return new Response(JSON.stringify(page), { status: 200, headers: { 'Content-Type': 'application/json' } });
  };
})();
"""


def test_notifications_preview_their_card_and_keep_likes_private(browsers):
    # A 404 for the card that does not exist lands in the author's console: checked here.
    author, reader = browsers("previewed", expect_errors=True), browsers("liker")
    author.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": NOTIFICATION_FAKES})
    text = unique("알림에서 미리 보일 카드")
    gone = str(uuid.uuid4())
    with step("A posts; B likes it and answers with a comment card"):
        start(author)
        card_id = post(author, text)
        start(reader)
        nickname = my_nickname(reader)
        reader.click("nav-home")
        card = feed_card(reader, card_id)
        toggle_like(reader, card, like_count(reader, card) + 1)
        open_card(reader, card)
        comment(reader, "미리보기 보이나요?")
        wait_comment(reader, "미리보기 보이나요?")
    with step("A's notifications: 'someone liked your card' (no name), the comment by B, each with the card's words"):
        author.driver.execute_script("sessionStorage.setItem('soomTestGoneCard', arguments[0])", gone)
        author.click("notifications")
        def entries(_):
            found = {e.get_attribute("data-id"): e for e in author.find_all("notification") if e.is_displayed()}
            return found if len(found) >= 3 else None
        found = author.until(entries, lambda: f"fewer than 3 {hook('notification')}s: {[text_of(e) for e in author.find_all('notification')]}",
                             NOTIFY_TIMEOUT)
        liked = next(e for i, e in found.items() if e.get_attribute("data-type") == "card_liked" and not i.startswith("gone-"))
        commented = next(e for e in found.values() if e.get_attribute("data-type") == "card_commented")
        words = text_of(liked)
        assert "누군가 카드에 공감했어요" in words, f"the like's notification says {words!r}"
        assert nickname not in words and "님" not in words.split("공감")[0], f"the like's notification names someone: {words!r}"
        assert nickname in text_of(commented), f"the comment's notification does not name {nickname}: {text_of(commented)!r}"
        for entry in (liked, commented):
            author.until(lambda _: text in text_of(author.find_all("notification-preview", entry)[0]),
                         lambda: f"no preview of the card in {text_of(entry)!r}")
        missing = found[f"gone-{gone}"]
        author.until(lambda _: "삭제되었거나" in text_of(author.find_all("notification-preview", missing)[0]),
                     lambda: f"the notification of a missing card says {text_of(missing)!r}")
        shown = glitches(author, "the notifications")
        assert not shown, "shown to people:\n" + "\n".join(shown)
        screen_shot(author, "notifications-phone")
    with step("opening the notifications again fetches no card again"):
        author.click("nav-home")
        author.click("notifications")
        author.until(lambda _: len([e for e in author.find_all("notification-preview") if text in text_of(e)]) >= 2,
                     "the previews are not shown the second time")
        fetched = author.driver.execute_script("return JSON.parse(sessionStorage.getItem('soomTestCardFetches') || '[]')")
        assert fetched.count(card_id) == 1, f"the card was fetched {fetched.count(card_id)} times for its previews"
        assert fetched.count(gone) == 1, f"the missing card was asked for {fetched.count(gone)} times"
    with step("English: 'Someone liked your card.'"):
        use_english(author)
        author.click("notifications")
        author.until(lambda _: any("Someone liked your card." in text_of(e) for e in author.find_all("notification")),
                     "no 'Someone liked your card.' in English")
    with step("no console error but the missing card's 404"):
        errors = [e.get("message") or "" for e in author.severe() if gone not in (e.get("message") or "")]
        assert not errors, "console errors:\n" + "\n".join(errors)


def test_empty_states_and_retries(browsers):
    # The faked failures put errors in its console on purpose.
    browser = browsers("empty", expect_errors=True)
    browser.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SESSION_FAULTS})
    start(browser)
    with step("a new account's following feed explains itself and offers a way on (to the tags)"):
        browser.click(browser.labelled(FOLLOWING_TAB_LABELS))
        empty = browser.visible("empty")
        ways = [e for e in empty.find_elements(By.CSS_SELECTOR, "a, button") if e.is_displayed()]
        assert len(text_of(empty)) > 30 and ways, f"the empty following feed says only {text_of(empty)!r}"
        screen_shot(browser, "empty-following-phone")
        browser.click(ways[0])
        browser.visible("ranked-tags")
    with step("no notifications yet: why, and a way on"):
        browser.click("notifications")
        empty = browser.visible("notifications-empty").find_element(By.XPATH, "./ancestor::*[@data-test='empty'][1]")
        assert [e for e in empty.find_elements(By.CSS_SELECTOR, "a, button") if e.is_displayed()], \
            f"the empty notifications offer no way on: {text_of(empty)!r}"
    with step("the tags screen: the ranked tags and my favourites fail to load, each offers a retry that works"):
        for failing, shown in (("/v1/tags/ranked", "ranked-tags"), ("/v1/me/favorite-tags", "empty")):
            browser.click("nav-home")
            session_fault(browser, failNext=failing)
            browser.click("nav-tags")
            retry = browser.visible("retry")
            assert [e for e in browser.find_all("error") if e.is_displayed()], f"no {hook('error')} when {failing} fails"
            browser.click(retry)
            browser.until(lambda _: browser.absent("retry") and browser.absent("error"), f"{hook('retry')} did not load {failing}")
            browser.visible(shown)
    with step("my blocked people fail to load: a retry that works"):
        session_fault(browser, failNext="/v1/me/blocks")
        browser.click("nav-me")
        browser.click("retry")
        browser.until(lambda _: browser.absent("retry") and browser.absent("error"), f"{hook('retry')} did not load my blocks")


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


# --- What operators say: notices, the update prompt, maintenance (`soom admin`) ------------------

def admin(*arguments):
    """Runs `soom admin ARGUMENTS` beside the running server, as an operator would; its output."""
    if not ADMIN or not DATA_DIR:
        pytest.skip("SOOM_BROWSER_ADMIN and SOOM_BROWSER_DATA_DIR are not set (run.sh sets them)")
    done = subprocess.run([ADMIN, "admin", *arguments, "--data-directory", DATA_DIR], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"soom admin {' '.join(arguments)} failed: {done.stderr[-800:]}"
    return done.stdout.strip()


# Every instance reads the operators' switches every two seconds.
SWITCH_DELAY = 2.5


def test_operator_notices_update_prompt_and_maintenance(browsers):
    # The refused writes during maintenance are 503s in the console, on purpose.
    browser = browsers("operator", expect_errors=True)
    title = unique("점검 안내")
    try:
        with step("a notice the operator posts shows as a banner, links to all notices, and stays dismissed"):
            notice_id = admin("notice", "add", "--kind", "maintenance", "--title", title, "--body", "새벽 3시에 잠깐 멈춰요.")
            assert re.fullmatch(r"[0-9a-f-]{36}", notice_id), f"notice add printed more than the id: {notice_id!r}"
            start(browser)
            banner = browser.visible("notice-banner")
            assert title in text_of(banner), f"the banner does not show the notice: {text_of(banner)!r}"
            browser.click("all-notices")
            listed = browser.visible("notices")
            browser.until(lambda _: title in text_of(listed), "the notices screen does not list the notice")
            browser.click("dismiss-notice")
            assert browser.absent("notice-banner"), "the dismissed notice is still shown"
            browser.driver.refresh()
            browser.visible("nav-home", timeout=START_TIMEOUT)
            time.sleep(1)
            assert browser.absent("notice-banner"), "the dismissed notice came back after a reload"
        with step("a newer web version offers a reload; a minimum above this one requires it"):
            admin("client-version", "set", "web", "--latest", "99.0.0", "--minimum", "0.0.0")
            time.sleep(SWITCH_DELAY)
            browser.driver.refresh()
            browser.visible("update-available", timeout=START_TIMEOUT)
            assert browser.find_all("reload", browser.visible("update-available")), "the update prompt offers no reload"
            admin("client-version", "set", "web", "--latest", "99.0.0", "--minimum", "99.0.0")
            time.sleep(SWITCH_DELAY)
            browser.driver.refresh()
            browser.visible("update-required", timeout=START_TIMEOUT)
            assert browser.driver.execute_script("return document.querySelector('main').inert"), "an unusable version leaves the page usable"
            admin("client-version", "set", "web", "--latest", "0.0.0", "--minimum", "0.0.0")
            time.sleep(SWITCH_DELAY)
            browser.driver.refresh()
            browser.visible("nav-home", timeout=START_TIMEOUT)
            time.sleep(1)
            assert browser.absent("update-available") and browser.absent("update-required"), "the update prompt outlived the operator's change"
        with step("maintenance: a write is refused with a banner naming its end, and writing is off until it ends"):
            until = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 14))
            admin("maintenance", "on", "--until", until)
            time.sleep(SWITCH_DELAY)
            browser.click("nav-home")
            browser.visible("feed")
            text = unique("점검 중에 쓴 카드")
            compose(browser, text)
            banner = browser.visible("maintenance-banner")
            assert "점검" in text_of(banner) or "maintenance" in text_of(banner), f"the banner does not say why: {text_of(banner)!r}"
            browser.until(lambda d: not d.find_element(By.CSS_SELECTOR, hook("compose")).is_enabled(),
                          "the compose button stays enabled during maintenance")
            error = browser.visible("error", browser.driver.find_element(By.CSS_SELECTOR, "dialog[open]"))
            assert "점검" in text_of(error) or "maintenance" in text_of(error), f"the refused post says: {text_of(error)!r}"
            press(browser, Keys.ESCAPE)
            # Reading still works.
            browser.click("nav-home")
            browser.visible("feed")
        with step("after its end the banner goes, and posting works again"):
            browser.until(lambda _: browser.absent("maintenance-banner"), "the maintenance banner outlived the maintenance", 20)
            post(browser, unique("점검 끝나고 쓴 카드"))
    finally:
        admin("maintenance", "off")
        admin("client-version", "set", "web", "--latest", "0.0.0", "--minimum", "0.0.0")


def test_view_counts_and_profile_visits(browsers):
    author, reader = browsers("viewed"), browsers("viewer")
    with step("A posts; B opens A's card, then A's profile from the card's author link"):
        start(author)
        card_id = post(author, unique("몇 명이 봤을까"))
        nickname = my_nickname(author)
        start(reader)
        open_card(reader, feed_card(reader, card_id))
        reader.click("nav-home")
        open_author(reader, feed_card(reader, card_id), nickname)
        visits = reader.visible("profile-visits")
        assert number_in(text_of(visits)) is not None, f"the profile shows no visit count: {text_of(visits)!r}"
    with step("A sees one view on the card and one visit on the profile (counted within seconds)"):
        def shows_one(read, what):
            deadline = time.time() + NOTIFY_TIMEOUT
            while True:
                count = read()
                if count == 1:
                    return
                assert time.time() < deadline, f"{what}: {count}"
                time.sleep(2)
                author.driver.refresh()
                author.visible("nav-home", timeout=START_TIMEOUT)

        def card_views():
            author.click("nav-home")
            return number_in(text_of(author.visible("view-count", feed_card(author, card_id))))

        def my_visits():
            author.click(author.labelled(ME_LABELS))
            shown = author.until(lambda _: next((e for e in author.find_all("my-visits") if e.is_displayed()), None),
                                 f"no visible {hook('my-visits')}")
            return number_in(text_of(shown))

        shows_one(card_views, "the card does not show its one view")
        shows_one(my_visits, "my profile does not show its one visit")


def test_my_comment_cards(browsers):
    browser = browsers("answerer")
    with step("post a card and answer it"):
        start(browser)
        card_id = post(browser, unique("답을 달 카드"))
        open_card(browser, feed_card(browser, card_id))
        text = unique("내가 단 댓글 카드")
        comment(browser, text)
        answer = wait_comment(browser, text)
        answer_id = answer.get_attribute("data-card-id")
        browser.visible("commented-by-me", detail_card(browser, card_id))
    with step("after a reload the feed marks the card as answered by me, and only that card"):
        browser.driver.refresh()
        browser.click("nav-home", timeout=START_TIMEOUT)
        browser.visible("feed", timeout=START_TIMEOUT)
        browser.visible("commented-by-me", feed_card(browser, card_id))
        other = post(browser, unique("답하지 않은 카드"))
        assert not any(e.is_displayed() for e in browser.find_all("commented-by-me", feed_card(browser, other))), \
            "a card I did not answer is marked as answered"
    with step("Me → my comment cards lists the answer"):
        browser.click(browser.labelled(ME_LABELS))
        browser.click(browser.labelled(("내 댓글 카드", "My comment cards")))
        browser.until(lambda _: answer_id in card_ids(browser, "my-comment-cards"),
                      lambda: f"the answer {answer_id} is not in {hook('my-comment-cards')}: {card_ids(browser, 'my-comment-cards')}")


def sql(statement):
    """Runs one SQL statement on the running server's embedded PostgreSQL, as an operator with psql would."""
    if not DATA_DIR:
        pytest.skip("SOOM_BROWSER_DATA_DIR is not set (run.sh sets it)")
    with open(os.path.join(DATA_DIR, "postgres", "postmaster.pid")) as pid:
        port = pid.read().splitlines()[3].strip()
    with open(os.path.join(DATA_DIR, "postgres-credentials")) as credentials:
        password = credentials.read().strip()
    done = subprocess.run(["psql", "-h", "127.0.0.1", "-p", port, "-U", "soom", "-d", "soom", "-v", "ON_ERROR_STOP=1", "-Atc", statement],
                          capture_output=True, text=True, timeout=60, env={**os.environ, "PGPASSWORD": password})
    assert done.returncode == 0, f"psql failed: {done.stderr[-800:]}"
    return done.stdout.strip()


def poll_state(browser, card):
    """The poll on `card` as shown: (pressed option indexes, counts shown, voters text)."""
    options = browser.find_all("poll-option", card)
    pressed = [int(o.get_attribute("data-index")) for o in options if o.get_attribute("aria-pressed") == "true"]
    counts = [number_in(text_of(c)) for c in browser.find_all("poll-count", card)]
    return pressed, counts, text_of(browser.find_all("poll-voters", card)[0])


def test_polls_vote_change_counts_and_closed(browsers):
    author, voter = browsers("pollster"), browsers("voter")
    text = unique("점심 투표")
    with step("the author posts a card with a three-option poll"):
        start(author)
        author.click("compose")
        author.type_into("compose-text", text)
        author.click("compose-poll")
        for field, option in zip(author.find_all("compose-poll-option"), ["김밥", "라면", "비빔밥"]):
            field.send_keys(option)
        author.click("compose-submit")
        card = wait_top_card(author, text)
        card_id = card.get_attribute("data-card-id")
        assert len(author.find_all("poll-option", card)) == 3, "the posted card shows its three options"
        assert all(not o.is_enabled() for o in author.find_all("poll-option", card)), "the author cannot vote"
    with step("a voter sees the options without counts, votes, and sees the live counts"):
        start(voter)
        voted = feed_card(voter, card_id)
        assert poll_state(voter, voted)[:2] == ([], []), "no counts before voting"
        voter.click(voter.find_all("poll-option", voted)[1])
        voter.until(lambda _: poll_state(voter, feed_card(voter, card_id))[:2] == ([1], [0, 1, 0]),
                    lambda: f"after voting for option 1: {poll_state(voter, feed_card(voter, card_id))}")
    with step("the voter changes the vote; a second tap on the same option withdraws it"):
        voter.click(voter.find_all("poll-option", feed_card(voter, card_id))[2])
        voter.until(lambda _: poll_state(voter, feed_card(voter, card_id))[:2] == ([2], [0, 0, 1]),
                    lambda: f"after changing to option 2: {poll_state(voter, feed_card(voter, card_id))}")
        voter.click(voter.find_all("poll-option", feed_card(voter, card_id))[2])
        voter.until(lambda _: poll_state(voter, feed_card(voter, card_id))[:2] == ([], []),
                    lambda: f"after withdrawing: {poll_state(voter, feed_card(voter, card_id))}")
        voter.click(voter.find_all("poll-option", feed_card(voter, card_id))[0])
        voter.until(lambda _: poll_state(voter, feed_card(voter, card_id))[0] == [0], "the vote for option 0 shows")
        os.makedirs(SCREENSHOTS, exist_ok=True)
        snapshot(voter, os.path.join(SCREENSHOTS, "poll.png"), scroll_to=voter.find_all("poll", feed_card(voter, card_id))[0])
        viewport(voter, *DESKTOP, mobile=False)
        assert horizontal_overflow(voter, "a poll at desktop size") is None
        snapshot(voter, os.path.join(SCREENSHOTS, "poll-desktop.png"), scroll_to=voter.find_all("poll", feed_card(voter, card_id))[0])
        viewport(voter, WIDTH, HEIGHT, mobile=True)
    with step("after a reload the ballot is still the voter's, and the author sees the count"):
        voter.driver.refresh()
        voter.visible("feed", timeout=START_TIMEOUT)
        assert poll_state(voter, feed_card(voter, card_id, timeout=START_TIMEOUT))[:2] == ([0], [1, 0, 0])
        author.driver.refresh()
        author.visible("feed", timeout=START_TIMEOUT)
        assert poll_state(author, feed_card(author, card_id, timeout=START_TIMEOUT))[1] == [1, 0, 0]
    with step("once the poll closed, it says so, shows the result and takes no ballot"):
        sql(f"UPDATE cards SET poll_closes_at = now() WHERE id = '{card_id}'")
        time.sleep(1.5)  # kept cards live at most a second
        voter.driver.refresh()
        voter.visible("feed", timeout=START_TIMEOUT)
        closed = feed_card(voter, card_id, timeout=START_TIMEOUT)
        voter.visible("poll-closed", closed)
        assert all(not o.is_enabled() for o in voter.find_all("poll-option", closed)), "a closed poll takes no ballot"
        assert poll_state(voter, closed)[:2] == ([0], [1, 0, 0])


def test_operator_card_pinned_with_badge(browsers):
    browser = browsers("reader")
    text = unique("운영 공지 카드")
    with step("an operator posts a pinned card with `soom admin card post`"):
        start(browser)
        post(browser, unique("보통 카드"))
        until = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
        card_id = admin("card", "post", "--content", text, "--pin-until", until)
        assert re.fullmatch(r"[0-9a-f-]{36}", card_id), f"`card post` prints the id and nothing else: {card_id!r}"
    with step("after a reload it leads the latest feed, pinned, with the operator's badge"):
        time.sleep(SWITCH_DELAY)
        browser.driver.refresh()
        browser.visible("feed", timeout=START_TIMEOUT)
        browser.until(lambda _: top_card_id(browser) == card_id, lambda: f"the pinned card {card_id} does not lead: {top_card_id(browser)}")
        top = feed_card(browser, card_id)
        browser.visible("pinned", top)
        browser.visible("operator-badge", top)
        os.makedirs(SCREENSHOTS, exist_ok=True)
        snapshot(browser, os.path.join(SCREENSHOTS, "pinned-operator-card.png"))
        viewport(browser, *DESKTOP, mobile=False)
        snapshot(browser, os.path.join(SCREENSHOTS, "pinned-operator-card-desktop.png"))
        viewport(browser, WIDTH, HEIGHT, mobile=True)
    with step("its author's profile carries the badge too"):
        browser.click(top.find_element(By.CSS_SELECTOR, "a.author"))
        browser.visible("profile", timeout=START_TIMEOUT)
        browser.visible("operator-badge", browser.visible("profile"))
    with step("unpinned, it is an ordinary card again"):
        assert admin("card", "unpin", card_id).startswith("Unpinned")
        time.sleep(SWITCH_DELAY)
        browser.click("nav-home")
        browser.driver.refresh()
        browser.visible("feed", timeout=START_TIMEOUT)
        card = feed_card(browser, card_id, timeout=START_TIMEOUT)
        assert not browser.find_all("pinned", card), "an unpinned card still shows pinned"


def notification_ids(browser):
    return [e.get_attribute("data-id") for e in browser.find_all("notification")]


def test_notifications_arrive_live_and_settings_hold(browsers):
    alice, bob = browsers("listener"), browsers("liker")
    with step("A posts and opens the notifications screen; B likes the card"):
        start(alice)
        card_id = post(alice, unique("실시간 알림"))
        alice.click("notifications")
        alice.visible("notifications-empty")
        start(bob)
        toggle_like(bob, feed_card(bob, card_id), 1)
    with step("the notification appears on A's open screen and badge within 3 s (live, not the 15 s poll)"):
        first = alice.until(lambda _: notification_ids(alice) or None, "no notification arrived live", 3)
        alice.until(lambda _: (unread(alice) or 0) >= 1, lambda: f"the badge stays at {unread(alice)!r}", 3)
    with step("the server drops the stream (its listener's connection ends); the page reconnects and replays"):
        sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'soom-notification-listener'")
        time.sleep(0.5)
        open_card(bob, feed_card(bob, card_id))
        comment(bob, unique("댓글 카드"))
        alice.until(lambda _: len(notification_ids(alice)) >= 2, lambda: f"after the drop: {notification_ids(alice)}", 15)
        assert notification_ids(alice)[1:] == first, "the new one goes on top, the old one stays"
    with step("the browser goes offline and back: the stream comes back and nothing is missed"):
        alice.driver.execute_cdp_cmd("Network.enable", {})
        alice.driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                                     {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        bob.click(detail_card(bob, card_id).find_element(By.CSS_SELECTOR, "a.author"))
        bob.click(bob.visible("follow", timeout=START_TIMEOUT))
        bob.until(lambda _: bob.visible("follow").get_attribute("data-following") == "true", "B does not follow A")
        time.sleep(1)
        alice.driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                                     {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        alice.until(lambda _: len(notification_ids(alice)) >= 3, lambda: f"after going online: {notification_ids(alice)}", 40)
        assert alice.find_all("notification")[0].get_attribute("data-type") == "followed"
    with step("A switches likes off and sets quiet hours on the settings screen; both hold after a reload"):
        alice.click("notification-settings")
        box = alice.visible("setting-cardLiked")
        assert box.is_selected(), "every kind is on at first"
        box.click()
        alice.until(lambda _: "저장" in text_of(alice.visible("settings-status")) or "Saved" in text_of(alice.visible("settings-status")),
                    "the change is not saved")
        alice.click("setting-quiet")
        alice.until(lambda _: sql("SELECT count(*) FROM notification_settings WHERE quiet_start IS NOT NULL AND 'card_liked' = ANY (muted)") == "1",
                    "the muted likes and the quiet hours are not stored")
        os.makedirs(SCREENSHOTS, exist_ok=True)
        snapshot(alice, os.path.join(SCREENSHOTS, "notification-settings.png"))
        viewport(alice, *DESKTOP, mobile=False)
        assert horizontal_overflow(alice, "the notification settings at desktop size") is None
        snapshot(alice, os.path.join(SCREENSHOTS, "notification-settings-desktop.png"))
        viewport(alice, WIDTH, HEIGHT, mobile=True)
        alice.driver.refresh()
        assert not alice.visible("setting-cardLiked", timeout=START_TIMEOUT).is_selected()
        assert alice.visible("setting-quiet").is_selected()
        assert alice.visible("setting-followed").is_selected()
        shown = glitches(alice, "the notification settings")
        assert not shown, "shown to people:\n" + "\n".join(shown)


def notifications_shown(browser):
    """The system notifications the page's service worker shows: [{title, body, tag}]."""
    return browser.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        navigator.serviceWorker.getRegistration('/').then(async (registration) => {
          if (!registration) return done(null);
          const shown = await registration.getNotifications();
          done(shown.map((n) => ({ title: n.title, body: n.body, tag: n.tag })));
        }).catch((error) => done(String(error)));""")


def deliver_push(browser, payload):
    """Hands the registered service worker a push message, as a push service would (DevTools:
    ServiceWorker.deliverPushMessage). Returns the registration id it reached."""
    browser.driver.execute_cdp_cmd("ServiceWorker.enable", {})
    last = None
    # A fresh profile numbers its registrations from 0; the page registers one.
    for registration in range(0, 8):
        try:
            browser.driver.execute_cdp_cmd("ServiceWorker.deliverPushMessage",
                                           {"origin": BASE, "registrationId": str(registration), "data": json.dumps(payload)})
            return registration
        except Exception as error:  # noqa: BLE001 — an unknown id: try the next
            last = error
    raise AssertionError(f"no service worker registration took the push: {last}")


def test_push_opt_in_and_the_service_worker_shows_pushes(browsers):
    browser = browsers("pusher")
    with step("nothing is asked of the browser before the person turns notifications on"):
        start(browser)
        browser.click("notifications")
        browser.click("notification-settings")
        browser.visible("push-toggle")
        assert browser.driver.execute_script("return Notification.permission") == "default"
        assert notifications_shown(browser) is None, "a service worker was registered before opting in"
    with step("turning it on (the person allows notifications) registers the worker"):
        browser.driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": BASE, "permissions": ["notifications"]})
        browser.click("push-toggle")
        # No push service is reachable from here, so the browser's own subscription fails and the
        # page says so; the worker is registered first all the same.
        browser.until(lambda _: notifications_shown(browser) is not None, "the service worker is not registered", 20)
        browser.until(lambda _: browser.visible("push-toggle").is_enabled(), "the switch stays busy", 30)
        shown = glitches(browser, "the push switch")
        assert not shown, "shown to people:\n" + "\n".join(shown)
        os.makedirs(SCREENSHOTS, exist_ok=True)
        snapshot(browser, os.path.join(SCREENSHOTS, "push-settings.png"))
    with step("a push (the Notification JSON) becomes one system notification, in words, even when sent twice"):
        notification = {"id": "6a1f6d1e-3b1c-4a6e-9b8e-2f1d0c9a8b7c", "type": "card_commented", "createdAt": "2026-11-29T12:00:00.000Z",
                        "read": False, "actor": {"id": "0f0e0d0c-0b0a-4909-8807-060504030201", "nickname": "하늘바라기",
                                                 "profileImage": None, "isOperator": False},
                        "cardId": "1c2b3a49-5867-4f8e-9dac-bfaedcba9876", "tag": None, "until": None}
        deliver_push(browser, notification)
        shown = browser.until(lambda _: notifications_shown(browser) or None, "the worker showed no notification", 10)
        assert shown[0]["tag"] == notification["id"], shown
        assert "하늘바라기" in shown[0]["body"] and "null" not in shown[0]["body"], shown
        deliver_push(browser, notification)
        time.sleep(1)
        assert len(notifications_shown(browser)) == 1, "the same notification twice is shown once"
    with step("a like's push names nobody"):
        like = {**notification, "id": "7b2e7e2f-4c2d-4b7f-8c9f-3e2e1d0b9c8d", "type": "card_liked", "actor": None}
        deliver_push(browser, like)
        browser.until(lambda _: len(notifications_shown(browser)) == 2, "the like's notification is not shown", 10)
        liked = next(n for n in notifications_shown(browser) if n["tag"] == like["id"])
        assert "누군가" in liked["body"] or "Someone" in liked["body"], liked
