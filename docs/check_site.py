"""Check the built documentation site in a real, headless browser.

Run it after building the site::

    sphinx-build -W --keep-going -b html docs docs/_build/html
    python docs/check_site.py

It needs Playwright's Python package (``pip install playwright``) and a
Chromium on the machine (``--browser``, by default ``$CHROMIUM`` or the
first of ``chromium`` and ``chromium-browser`` on the path); it downloads
no browser.  The site is served from ``127.0.0.1`` by a server started
here, because a browser treats ``file://`` pages differently (the search
page, for one, loads its index by script).

What it checks, each a line of the report:

* every internal link (``href``) and image (``src``) of every page of the
  site points to a file that exists, and every ``#fragment`` to an ``id``
  of that file (read from the HTML, so it covers pages no browser opens);
* the front page, an API page, a method page, a tutorial, the theory and
  (if the site has one) the gallery load with no console error or
  uncaught exception, with every image decoded;
* the maths renders: MathJax has produced an output element for every
  formula of the theory page and none of them is a TeX error;
* the search page finds "perplexity".

Screenshots of each page go to ``docs/_build/screenshots/``, to look at.

MathJax is loaded from its CDN by the pages.  Where the machine has no
network, ``--mathjax DIR`` (or an installed ``mathjax`` package, as
``django-static-mathjax`` provides) serves a local MathJax 3 in its place;
the pages themselves are not changed.  Any other request that leaves the
local server is refused and reported, so the check never depends on the
network silently.

The exit status is 0 when every check passes and 1 otherwise.
"""

from __future__ import annotations

import argparse
import functools
import html.parser
import http.server
import os
import shutil
import sys
import threading
import urllib.parse
from pathlib import Path

DOCS = Path(__file__).resolve().parent

#: the pages opened in the browser: (name, path in the site, what to wait for)
PAGES = [
    ("front", "index.html"),
    ("api", "api/generated/smallvis.embed.html"),
    ("method", "_generated/methods/tsne.html"),
    ("tutorial", "_generated/tutorials/01_sne_by_hand.html"),
    ("theory", "theory.html"),
]
#: pages opened only when the site has them
OPTIONAL_PAGES = [
    ("gallery", "gallery/index.html"),
    ("gallery", "gallery.html"),
]

MATHJAX_CDN_HOSTS = ("cdn.jsdelivr.net",)

PlaywrightTimeout = TimeoutError  # replaced by Playwright's own once it is imported


# -- links, read from the HTML ---------------------------------------------------

class _PageParser(html.parser.HTMLParser):
    """The ids of a page and the links and image sources it holds."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.links = []   # (attribute, value)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        for name in ("href", "src"):
            value = attrs.get(name)
            if value and tag in ("a", "img", "link", "script", "source", "iframe"):
                self.links.append((f"<{tag} {name}>", value))


def _parse(path):
    parser = _PageParser()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    return parser


def check_links(site: Path) -> list[str]:
    """Every internal link and image of every page, and each fragment's target."""
    problems = []
    parsed = {}

    def page(path):
        if path not in parsed:
            parsed[path] = _parse(path)
        return parsed[path]

    pages = sorted(site.rglob("*.html"))
    for source in pages:
        for kind, value in page(source).links:
            url = urllib.parse.urlsplit(value)
            if url.scheme or url.netloc or value.startswith(("mailto:", "data:", "javascript:")):
                continue
            target = source if not url.path else (source.parent / urllib.parse.unquote(url.path))
            target = Path(os.path.normpath(target))
            where = f"{source.relative_to(site)}: {kind} {value}"
            if site not in target.parents and target != site:
                problems.append(f"{where} leaves the site")
                continue
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                problems.append(f"{where} points to a missing file")
                continue
            if url.fragment and target.suffix == ".html":
                fragment = urllib.parse.unquote(url.fragment)
                if fragment not in page(target).ids:
                    problems.append(f"{where}: no id {fragment!r} in {target.relative_to(site)}")
    return problems, len(pages)


# -- the local server ------------------------------------------------------------------

class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # the report says what matters
        pass


def serve(site: Path):
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def find_local_mathjax(given: str | None) -> Path | None:
    """A directory holding MathJax 3's ``tex-mml-chtml.js`` (its ``es5`` folder)."""
    if given:
        path = Path(given)
        if not (path / "tex-mml-chtml.js").is_file():
            raise SystemExit(f"--mathjax {given}: no tex-mml-chtml.js in that directory")
        return path
    try:
        import mathjax  # django-static-mathjax
    except ImportError:
        return None
    path = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
    return path if (path / "tex-mml-chtml.js").is_file() else None


def find_browser(given: str | None) -> str:
    for candidate in (given, os.environ.get("CHROMIUM"), shutil.which("chromium"),
                      shutil.which("chromium-browser")):
        if candidate and Path(candidate).is_file():
            return candidate
    raise SystemExit("no Chromium found: install it (Debian: apt-get install chromium) "
                     "or pass --browser PATH")


# -- the browser checks -------------------------------------------------------------

def _route_requests(page, base, mathjax_dir, refused):
    """Serve MathJax from ``mathjax_dir`` if given; refuse every other outside request."""

    def handle(route):
        url = route.request.url
        if url.startswith(base) or url.startswith(("data:", "blob:")):
            return route.continue_()
        parts = urllib.parse.urlsplit(url)
        if parts.hostname in MATHJAX_CDN_HOSTS and "mathjax" in parts.path:
            if mathjax_dir is None:
                return route.continue_()
            # .../mathjax@4/<file> -> <mathjax_dir>/<file>
            segments = parts.path.split("/")
            at = next((i for i, s in enumerate(segments) if s.startswith("mathjax")), None)
            local = mathjax_dir.joinpath(*segments[at + 1:]) if at is not None else mathjax_dir
            if local.is_file():
                content_type = ("application/javascript" if local.suffix == ".js"
                                else "font/woff" if local.suffix == ".woff" else None)
                return route.fulfill(path=str(local), content_type=content_type)
            refused.append(url)
            return route.abort()
        refused.append(url)
        return route.abort()

    page.route("**/*", handle)


def _console_error(msg):
    url = (msg.location or {}).get("url")
    return f"console error: {msg.text}" + (f" ({url})" if url else "")


def check_page(context, base, name, path, shots, mathjax_dir):
    """Open one page; return its problems and a one-line summary."""
    problems, errors, refused = [], [], []
    page = context.new_page()
    page.on("console", lambda msg: errors.append(_console_error(msg))
            if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(f"uncaught exception: {exc}"))
    _route_requests(page, base, mathjax_dir, refused)
    response = page.goto(base + path, wait_until="load")
    if response is None or not response.ok:
        problems.append(f"{name} ({path}): HTTP {response.status if response else 'no response'}")
    try:
        page.wait_for_load_state("networkidle", timeout=60_000)
    except PlaywrightTimeout:
        pass  # a busy machine; the checks below wait for what they need
    summary = ""
    n_math = page.locator(".math").count()
    if n_math:
        # MathJax typesets after load; its startup promise resolves when done
        page.wait_for_function(
            "() => window.MathJax && MathJax.startup && MathJax.startup.promise"
            " && document.querySelectorAll('mjx-container').length > 0", timeout=60_000)
        page.evaluate("() => MathJax.startup.promise")
        rendered = page.locator("mjx-container").count()
        merrors = page.locator("mjx-merror").count()
        summary = f"{n_math} formulas, {rendered} rendered by MathJax, {merrors} TeX errors"
        if rendered < n_math:
            problems.append(f"{name}: only {rendered} of {n_math} formulas rendered")
        if merrors:
            texts = page.locator("mjx-merror").evaluate_all(
                "els => els.slice(0, 5).map(e => e.getAttribute('data-mjx-error') || e.textContent)")
            problems.append(f"{name}: {merrors} TeX errors, e.g. {texts}")
    broken = page.evaluate(
        "() => Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0)"
        ".map(i => i.getAttribute('src'))")
    problems += [f"{name}: image {src} did not load" for src in broken]
    problems += [f"{name}: {e}" for e in errors]
    problems += [f"{name}: refused request to {u} (outside the site)" for u in refused]
    page.screenshot(path=str(shots / f"{name}.png"))
    page.screenshot(path=str(shots / f"{name}_full.png"), full_page=True)
    if name == "theory":
        # a screenshot where the formulas are dense, at a readable size
        page.locator("#tsne").scroll_into_view_if_needed()
        page.screenshot(path=str(shots / "theory_maths.png"))
    n_images = page.evaluate("() => document.images.length")
    page.close()
    return problems, f"{name}: {path} loaded, {n_images} images" + (f", {summary}" if summary else "")


def check_search(context, base, shots, word="perplexity"):
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(f"uncaught exception: {exc}"))
    page.on("console", lambda msg: errors.append(_console_error(msg))
            if msg.type == "error" else None)
    page.goto(f"{base}search.html?q={word}", wait_until="load")
    results = page.locator("#search-results ul.search li")
    try:
        results.first.wait_for(timeout=60_000)
    except PlaywrightTimeout:
        pass  # no result: reported below
    n = results.count()
    page.screenshot(path=str(shots / "search.png"))
    page.close()
    problems = [f"search: {e}" for e in errors]
    if n == 0:
        problems.append(f"search: no result for {word!r}")
    return problems, f"search: {n} pages found for {word!r}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", nargs="?", default=str(DOCS / "_build" / "html"),
                        help="the built site (default: docs/_build/html)")
    parser.add_argument("--screenshots", default=str(DOCS / "_build" / "screenshots"))
    parser.add_argument("--browser", help="the Chromium executable")
    parser.add_argument("--mathjax", help="a local MathJax 3 es5 directory, for machines "
                        "without network (default: the mathjax package, when installed)")
    args = parser.parse_args(argv)

    site = Path(args.site).resolve()
    if not (site / "index.html").is_file():
        raise SystemExit(f"{site} has no index.html: build the site first")
    shots = Path(args.screenshots)
    shots.mkdir(parents=True, exist_ok=True)

    problems, lines = [], []
    link_problems, n_pages = check_links(site)
    problems += link_problems
    lines.append(f"links: {n_pages} pages read, {len(link_problems)} broken links or images")

    global PlaywrightTimeout
    from playwright.sync_api import TimeoutError as PlaywrightTimeout, sync_playwright

    mathjax_dir = find_local_mathjax(args.mathjax)
    lines.append("MathJax: " + (f"served from {mathjax_dir}" if mathjax_dir else "from its CDN"))
    pages = PAGES + [p for p in OPTIONAL_PAGES if (site / p[1]).is_file()][:1]
    server, base = serve(site)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=find_browser(args.browser),
                                                 headless=True)
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            for name, path in pages:
                page_problems, line = check_page(context, base, name, path, shots, mathjax_dir)
                problems += page_problems
                lines.append(line)
            search_problems, line = check_search(context, base, shots)
            problems += search_problems
            lines.append(line)
            browser.close()
    finally:
        server.shutdown()

    print("\n".join(lines))
    print(f"screenshots in {shots}")
    if problems:
        print(f"\n{len(problems)} problems:")
        print("\n".join(f"  {p}" for p in problems))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
